from queryengine.registry import Display, Resource, register

from ..dcim.resources import cabled
from .models import Circuit, CircuitTermination, CircuitType, Provider, ProviderNetwork

register(
    Resource(
        Provider,
        "circuits/providers",
        search=("name", "account", "comments"),
        counts={"circuit_count": "circuits.Circuit.provider"},
    )
)
register(Resource(ProviderNetwork, "circuits/provider-networks", natural_key=None))
register(
    Resource(CircuitType, "circuits/circuit-types", counts={"circuit_count": "circuits.Circuit.circuit_type"})
)
register(
    Resource(
        Circuit,
        "circuits/circuits",
        display=Display(("cid",)),
        search=("cid", "description", "comments"),
        natural_key=None,
    )
)
register(
    Resource(
        CircuitTermination,
        "circuits/circuit-terminations",
        display=Display(
            ("term_side", "location__name", "provider_network__name"),
            lambda side, location, network: f"Termination {side}: {location or network}",
        ),
        **cabled(search=("xconnect_id", "pp_info", "description"), natural_key=None),
    )
)
