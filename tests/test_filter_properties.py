"""Property tests: random combinations of filters (ANDed across names, ORed within one) on the
sample data select exactly the rows the Python oracle of the generic family selects."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from queryengine.permissions import restricted
from queryengine.query import filters_of
from queryengine.registry import resource_by_object_type

from .test_api_generic import current_filters, every, matches, sample_values

TYPES = ("tenancy.tenant", "dcim.location", "dcim.device", "dcim.interface", "ipam.prefix", "ipam.ipaddress")


def candidates(resource, objects) -> list[tuple[str, object]]:
    """Every (filter, value) pair the generic family knows how to judge."""
    return [
        (name, value)
        for name, flt in current_filters(resource)
        for value in sample_values(flt, resource, objects)
    ]


@pytest.mark.parametrize("object_type", TYPES)
def test_random_filter_combinations_agree_with_the_oracle(api, superuser, object_type):
    resource = resource_by_object_type(object_type)
    objects = list(restricted(resource, superuser))
    pairs = candidates(resource, objects)
    flts = filters_of(resource)

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,  # the same combinations on every run: a failure reproduces
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(st.sampled_from(pairs), min_size=2, max_size=4, unique_by=lambda pair: pair[0]))
    def check(chosen):
        expected = {
            str(o.pk)
            for o in objects
            if all(matches(flts[name], resource, o, value, superuser) for name, value in chosen)
        }
        got = {row["id"] for row in every(api, resource, dict(chosen))}
        assert got == expected, chosen

    check()
