"""The VPN application's declarations: each model once, under /api/vpn/."""

from inventory.dcim.filters import list_text_contains
from queryengine.registry import Computed, Display, Resource, register

from .models import (
    VPN,
    VPNPhase1Policy,
    VPNPhase2Policy,
    VPNProfile,
    VPNProfilePhase1PolicyAssignment,
    VPNProfilePhase2PolicyAssignment,
    VPNTermination,
    VPNTunnel,
    VPNTunnelEndpoint,
    choice_list,
)


def listed(name: str, allowed: list) -> Computed:
    """A list of choices, shown as its values, as the reference's list fields show, take and
    describe it."""

    def write(instance, value) -> None:
        setattr(instance, name, choice_list(value, allowed))

    values = [v for v, _ in allowed]
    return Computed(
        (name,),
        lambda stored: stored,
        output="object",
        write=write,
        options={
            "type": "list",
            "child": {
                "type": "choice",
                "required": True,
                "read_only": False,
                "choices": [{"value": v, "display": label} for v, label in allowed],
            },
        },
        read_schema={"type": "array", "items": {"type": "string", "enum": values}, "nullable": True},
        write_schema={"type": "array", "items": {"type": "string", "enum": values}},
    )


def lists(fields: dict) -> dict:
    return {
        "hidden": tuple(fields),
        "computed": {name: listed(name, allowed) for name, allowed in fields.items()},
        "filters": {name: list_text_contains(name) for name in fields},
    }


register(
    Resource(
        VPNProfile,
        "vpn/vpn-profiles",
        # Written through their assignments (with a weight), as the reference's are.
        read_only=("vpn_phase1_policies", "vpn_phase2_policies"),
        relations={name: name for name in ("vpn_phase1_policies", "vpn_phase2_policies")},
        json_filters=("extra_options",),
    )
)
register(
    Resource(
        VPNPhase1Policy,
        "vpn/vpn-phase-1-policies",
        relations={"vpn_profiles": "vpn_profiles"},
        **lists(VPNPhase1Policy.LISTS),
    )
)
register(
    Resource(
        VPNPhase2Policy,
        "vpn/vpn-phase-2-policies",
        relations={"vpn_profiles": "vpn_profiles"},
        **lists(VPNPhase2Policy.LISTS),
    )
)
for model, policy, phase in (
    (VPNProfilePhase1PolicyAssignment, "vpn_phase1_policy", 1),
    (VPNProfilePhase2PolicyAssignment, "vpn_phase2_policy", 2),
):
    register(
        Resource(
            model,
            f"vpn/vpn-profile-phase-{phase}-policy-assignments",
            display=Display(
                ("vpn_profile__name", f"{policy}__name"), lambda profile, named: f"{profile}: {named}"
            ),
            search=("vpn_profile__name", f"{policy}__name"),
            natural_key=None,
        )
    )
register(
    Resource(
        VPN,
        "vpn/vpns",
        search=("name", "description", "vpn_id"),
        json_filters=("extra_attributes",),
    )
)
register(
    Resource(
        VPNTunnel,
        "vpn/vpn-tunnels",
        search=("vpn__name", "vpn_profile__name", "description", "tunnel_id"),
    )
)
register(
    Resource(
        VPNTunnelEndpoint,
        "vpn/vpn-tunnel-endpoints",
        read_only=("name",),
        search=("device__name", "source_interface__name", "source_fqdn"),
        natural_key=None,
        filter_choices={"tunnel_interface": {"type": "tunnel"}},
        relations={
            "endpoint_a_vpn_tunnels": "endpoint_a_vpn_tunnels",
            "endpoint_z_vpn_tunnels": "endpoint_z_vpn_tunnels",
        },
    )
)


def termination_display(vpn, vlan, vid, interface, label, vm_interface) -> str:
    """`<its VLAN, interface or VM interface> <> <VPN>`, each shown as the reference shows it."""
    if vlan is not None:
        target = f"{vlan} ({vid})"
    elif interface is not None:
        target = f"{interface} ({label})" if label else interface
    else:
        target = vm_interface
    return f"{target} <> {vpn}"


def assigned_type(vlan, interface, vm_interface) -> str | None:
    for value, label in zip((vlan, interface, vm_interface), VPNTermination.TARGETS.values(), strict=True):
        if value is not None:
            return label
    return None


register(
    Resource(
        VPNTermination,
        "vpn/vpn-terminations",
        display=Display(
            (
                "vpn__name",
                "vlan__name",
                "vlan__vid",
                "interface__name",
                "interface__label",
                "vm_interface__name",
            ),
            termination_display,
        ),
        search=("vpn__name", "vlan__name", "interface__name", "vm_interface__name"),
        natural_key=None,
        computed={
            "assigned_object_type": Computed(("vlan", "interface", "vm_interface"), assigned_type),
        },
        read_only=("assigned_object_type",),
    )
)
