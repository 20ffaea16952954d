"""pynautobot (the reference's Python client, from PyPI) runs jobs against this server unchanged:
`nb.extras.jobs.run(...)`, `run_and_wait(...)`, a job record's `run()` and a scheduled run."""

from __future__ import annotations

import datetime

import pytest
from django.test import override_settings
from django.utils import timezone

from config.celery import app as celery_app
from inventory.jobs.discovery import sync_jobs
from inventory.jobs.models import Job
from inventory.users.models import Token

pynautobot = pytest.importorskip("pynautobot")


@pytest.fixture
def nb(live_server, superuser):
    celery_app.conf.task_always_eager = True  # the live server runs in this process
    with override_settings(JOBS_MODULES=["tests.sample_jobs"]):
        sync_jobs()
        Job.objects.filter(module_name="tests.sample_jobs").update(enabled=True)
        yield pynautobot.api(live_server.url, token=Token.objects.create(user=superuser).key)
    celery_app.conf.task_always_eager = False


def test_pynautobot_runs_and_waits_for_jobs(nb):
    job = nb.extras.jobs.get(name="Greet")
    assert job.job_class_name == "Greet" and job.object_type == "extras.job"
    ran = nb.extras.jobs.run(job_id=job.id, data={"who": "client"})
    assert ran.scheduled_job is None and str(ran.job_result.status) in ("SUCCESS", "Success")
    waited = nb.extras.jobs.run_and_wait(
        job_name="Greet", data={"who": "waiting"}, interval=0.1, max_rechecks=5
    )
    assert waited.job_result.result["who"] == "waiting"
    assert job.run(data={"who": "record"}).job_result.result["who"] == "record"
    start = (timezone.now() + datetime.timedelta(hours=1)).isoformat()
    scheduled = nb.extras.jobs.run(
        job_id=job.id,
        data={"who": "later"},
        schedule={"name": "later", "interval": "future", "start_time": start},
    )
    assert scheduled.job_result is None and scheduled.scheduled_job.name == "later"
    assert [s.name for s in nb.extras.scheduled_jobs.all()] == ["later"]


def test_an_exhausted_prefix_raises_the_clients_allocation_error(nb):
    """pynautobot raises AllocationError on the reference's answer to too little room (204)."""
    prefix = nb.ipam.prefixes.create(prefix="192.0.2.0/29", status="Active")
    two = prefix.available_ips.create([{}, {}])
    assert [ip.address for ip in two] == ["192.0.2.1/29", "192.0.2.2/29"]
    with pytest.raises(pynautobot.AllocationError):
        prefix.available_ips.create([{}] * 5)  # four remain
    assert nb.ipam.ip_addresses.count(parent="192.0.2.0/29") == 2
    halves = prefix.available_prefixes.create([{"prefix_length": 30}, {"prefix_length": 30}])
    assert [p.prefix for p in halves] == ["192.0.2.0/30", "192.0.2.4/30"]
    with pytest.raises(pynautobot.AllocationError):
        prefix.available_prefixes.create({"prefix_length": 30})


def test_allocation_stays_in_the_parents_namespace(nb):
    """Prefixes and addresses allocated from a prefix land in its namespace, under it, single or
    bulk; the same space in another namespace neither takes room nor receives them."""
    names = ["Global", "Blue", "Red"]
    for name in names[1:]:
        nb.ipam.namespaces.create(name=name)
    nb.ipam.prefixes.create(prefix="10.20.0.0/16", status="Active")  # Global, left out
    nb.ipam.prefixes.create(prefix="10.20.0.0/24", status="Active")  # taken in Global only
    for name in names:
        top = nb.ipam.prefixes.get(prefix="10.20.0.0/16", namespace=name) or nb.ipam.prefixes.create(
            prefix="10.20.0.0/16", status="Active", namespace=name
        )
        first = top.available_prefixes.create({"prefix_length": 24})
        more = top.available_prefixes.create([{"prefix_length": 24}, {"prefix_length": 25}])
        allocated = [first, *more]
        start = 1 if name == "Global" else 0
        assert [p.prefix for p in allocated] == [
            f"10.20.{start}.0/24",
            f"10.20.{start + 1}.0/24",
            f"10.20.{start + 2}.0/25",
        ]
        for prefix in allocated:
            assert prefix.namespace.name == name and prefix.parent.id == top.id
        assert nb.ipam.prefixes.count(within="10.20.0.0/16", namespace=name) == 3 + (name == "Global")

        subnet = nb.ipam.prefixes.get(first.id)
        one = subnet.available_ips.create({})
        two = subnet.available_ips.create([{}, {"description": "second"}])
        addresses = [one, *two]
        assert [ip.address for ip in addresses] == [f"{first.prefix[:-4]}{n}/24" for n in (1, 2, 3)]
        for ip in addresses:
            assert ip.parent.id == first.id
            assert nb.ipam.ip_addresses.get(ip.id).parent.namespace.id == top.namespace.id
        assert nb.ipam.ip_addresses.count(parent=first.prefix, namespace=name) == 3
    for name in names:
        assert nb.ipam.prefixes.count(namespace=name) == 4 + (name == "Global")
        assert nb.ipam.ip_addresses.count(namespace=name) == 3


def test_prefixes_and_vrfs_are_labelled_with_their_namespace(nb):
    """A prefix reads `<prefix>: <namespace>` and a VRF `<namespace>: (<name>)`, as the
    reference labels them; an address is its address alone."""
    nb.ipam.namespaces.create(name="Blue")
    prefix = nb.ipam.prefixes.create(prefix="10.20.1.0/24", status="Active", namespace="Blue")
    assert prefix.display == str(prefix) == "10.20.1.0/24: Blue"
    assert str(nb.ipam.prefixes.get(prefix.id)) == "10.20.1.0/24: Blue"
    vrf = nb.ipam.vrfs.create(name="red", rd="65000:1", namespace="Blue")
    assert str(nb.ipam.vrfs.get(vrf.id)) == "Blue: (red)"
    address = nb.ipam.ip_addresses.create(address="10.20.1.5/24", status="Active", namespace="Blue")
    assert str(address) == "10.20.1.5/24"
    child = prefix.available_prefixes.create({"prefix_length": 25})
    assert child.display == "10.20.1.0/25: Blue"
