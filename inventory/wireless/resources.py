"""The wireless application's declarations: each model once, under /api/wireless/."""

from django.db.models import Q, TextField
from django.db.models.functions import Cast

from inventory.dcim.capabilities import choice_schema
from inventory.dcim.filters import flag, list_text_contains
from queryengine.filters import INT_ARGUMENT, parse_int
from queryengine.registry import Computed, CustomFilter, Display, Resource, register

from .models import (
    CHANNEL_WIDTH_LABELS,
    ControllerManagedDeviceGroupRadioProfileAssignment,
    ControllerManagedDeviceGroupWirelessNetworkAssignment,
    RadioProfile,
    SupportedDataRate,
    WirelessNetwork,
    integer_list,
)

GROUPS = "controller_managed_device_groups"


def number_list(name: str, allowed: dict | None = None, help_text: str = "") -> Computed:
    """A list of numbers (each a choice of `allowed` when given, shown as {value, label}), as the
    reference's list fields show, take and describe it."""

    def render(values):
        if values is None or allowed is None:
            return values
        return [{"value": v, "label": allowed.get(v, str(v))} for v in values]

    def write(instance, value) -> None:
        setattr(instance, name, integer_list(value, allowed))

    child = {"type": "field" if allowed else "integer", "required": False, "read_only": False}
    if allowed:
        child["choices"] = [{"value": v, "display": label} for v, label in allowed.items()]
    number = {"type": "integer"}
    if allowed:
        number["enum"] = list(allowed)
        read_item = choice_schema(allowed)
        read_item["properties"]["value"] = {"type": "integer", "enum": list(allowed)}
    else:
        read_item = number
    return Computed(
        (name,),
        render,
        output="object",
        write=write,
        help_text=help_text,
        options={"type": "list", "child": child},
        read_schema={"type": "array", "items": read_item, "nullable": True},
        write_schema={"type": "array", "items": number},
    )


def holding(name: str) -> CustomFilter:
    """Objects whose list `name` holds the given number (any of several), as the reference's
    array filter: a whole number, not a digit inside another one."""

    def build(values) -> Q:
        pattern = "|".join(str(v) for v in values)
        texts = RadioProfile.objects.annotate(_text=Cast(name, TextField()))
        return Q(pk__in=texts.filter(_text__regex=rf"[^0-9-]({pattern})[^0-9]").values("pk"))

    def oracle(obj, values) -> bool:
        return any(v in (getattr(obj, name) or []) for v in values)

    def samples(objects) -> list:
        present = [v for o in objects for v in getattr(o, name) or []]
        return [str(present[0]), [str(present[-1]), "7"]] if present else []

    return CustomFilter(build, parse_int, oracle, samples, argument=INT_ARGUMENT)


def rate_search(value: str) -> Q:
    """`q`: the standard contains the text, or the rate or MCS index is that number."""
    match = Q(standard__icontains=value)
    try:
        number = int(value)
    except ValueError:
        return match
    return match | Q(rate=number) | Q(mcs_index=number)


def has(path: str) -> CustomFilter:
    return flag(lambda _: Q(**{f"{path}__isnull": False}), lambda obj: getattr(obj, path).exists())


register(
    Resource(
        SupportedDataRate,
        "wireless/supported-data-rates",
        display=Display(("standard", "rate"), lambda standard, rate: f"{standard}: {rate} Kbps"),
        search=("standard",),
        search_q=rate_search,
        natural_key=None,
        relations={"radio_profiles": "radio_profiles"},
        filters={"has_radio_profiles": has("radio_profiles")},
    )
)
register(
    Resource(
        RadioProfile,
        "wireless/radio-profiles",
        search=("name", "regulatory_domain"),
        search_q=lambda value: (
            Q(name__icontains=value) | Q(regulatory_domain__icontains=value) | Q(frequency=value)
        ),
        hidden=("channel_width", "allowed_channel_list"),
        computed={
            "channel_width": number_list("channel_width", CHANNEL_WIDTH_LABELS),
            "allowed_channel_list": number_list(
                "allowed_channel_list",
                help_text=RadioProfile._meta.get_field("allowed_channel_list").help_text,
            ),
        },
        relations={
            "supported_data_rates": "supported_data_rates",
            GROUPS: GROUPS,
            f"{GROUPS}__devices": f"{GROUPS}__devices",
        },
        filters={
            "channel_width": holding("channel_width"),
            "allowed_channel_list": list_text_contains("allowed_channel_list"),
            f"has_{GROUPS}": has(GROUPS),
        },
    )
)
register(
    Resource(
        WirelessNetwork,
        "wireless/wireless-networks",
        search=("name", "description", "ssid"),
        relations={
            GROUPS: GROUPS,
            f"{GROUPS}__devices": f"{GROUPS}__devices",
            f"{GROUPS}__controller": f"{GROUPS}__controller",
        },
        filters={f"has_{GROUPS}": has(GROUPS)},
    )
)
register(
    Resource(
        ControllerManagedDeviceGroupWirelessNetworkAssignment,
        "wireless/controller-managed-device-group-wireless-network-assignments",
        display=Display(
            ("controller_managed_device_group__name", "wireless_network__name"),
            lambda group, network: f"{group}: {network}",
        ),
        search=("controller_managed_device_group__name", "wireless_network__name"),
        natural_key=None,
    )
)
register(
    Resource(
        ControllerManagedDeviceGroupRadioProfileAssignment,
        "wireless/controller-managed-device-group-radio-profile-assignments",
        display=Display(
            ("controller_managed_device_group__name", "radio_profile__name"),
            lambda group, profile: f"{group}: {profile}",
        ),
        search=("controller_managed_device_group__name", "radio_profile__name"),
        natural_key=None,
    )
)
