from inventory.dcim.legacy import site_filters, site_of
from queryengine.registry import Display, Legacy, Resource, register

from ..dcim.cabling import cabled
from ..dcim.filters import holding
from .models import Circuit, CircuitTermination, CircuitType, Provider, ProviderNetwork

register(
    Resource(
        Provider,
        "circuits/providers",
        search=("name", "account", "comments"),
        counts={"circuit_count": "circuits.Circuit.provider"},
        relations={"location": "circuits__circuit_terminations__location"},
        legacy=Legacy(nested=("name", "slug", "circuit_count")),
    )
)
register(Resource(ProviderNetwork, "circuits/provider-networks", natural_key=None))
register(
    Resource(
        CircuitType,
        "circuits/circuit-types",
        counts={"circuit_count": "circuits.Circuit.circuit_type"},
        legacy=Legacy(nested=("name", "slug", "circuit_count")),
    )
)
register(
    Resource(
        Circuit,
        "circuits/circuits",
        display=Display(("cid",)),
        search=("cid", "description", "comments"),
        # Named by its circuit ID, as the reference's filters and writes name it (unique with
        # its provider: a name matching several is refused by writes, matches all in filters).
        natural_key="cid",
        # Where any of its terminations is, as the reference's.
        relations={
            "location": "circuit_terminations__location",
            "provider_network": "circuit_terminations__provider_network",
            "cloud_network": "circuit_terminations__cloud_network",
        },
        filters={"has_terminations": holding("circuit_terminations")},
        legacy=Legacy(
            nested=("cid",),
            renamed={
                "type": "circuit_type",
                "termination_a": "circuit_termination_a",
                "termination_z": "circuit_termination_z",
            },
            filters=site_filters("circuit_terminations__location"),
        ),
    )
)
register(
    Resource(
        CircuitTermination,
        "circuits/circuit-terminations",
        display=Display(
            ("term_side", "location__name", "provider_network__name", "cloud_network__name"),
            lambda side, location, network, cloud: f"Termination {side}: {location or network or cloud}",
        ),
        **cabled(
            CircuitTermination,
            search=("xconnect_id", "pp_info", "description"),
            natural_key=None,
            legacy=Legacy(
                nested=("circuit", "term_side", "cable"), fields={"site": site_of()}, filters=site_filters()
            ),
        ),
        changes_relate_to=("circuit",),
    )
)
