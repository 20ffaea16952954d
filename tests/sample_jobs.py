"""Jobs the tests install (JOBS_MODULES): one per behaviour worth proving end to end."""

from inventory.ipam.models import VRF
from inventory.jobs.base import (
    BooleanVar,
    ChoiceVar,
    FileVar,
    IntegerVar,
    IPAddressVar,
    IPNetworkVar,
    Job,
    JobButtonReceiver,
    JobHookReceiver,
    JSONVar,
    MultiChoiceVar,
    MultiObjectVar,
    ObjectVar,
    StringVar,
)

name = "Test jobs"


class Greet(Job):
    """Logs a greeting per VRF and returns what it was given."""

    who = StringVar(max_length=20)
    times = IntegerVar(min_value=1, max_value=5, default=1)
    loud = BooleanVar()
    colour = ChoiceVar(choices=[("red", "Red"), ("blue", "Blue")], required=False)
    tags = MultiChoiceVar(choices=["a", "b", "c"], required=False)
    vrf = ObjectVar(model=VRF, required=False)
    vrfs = MultiObjectVar(model=VRF, required=False)
    attachment = FileVar(required=False)
    address = IPAddressVar(required=False)
    network = IPNetworkVar(required=False)
    settings = JSONVar(required=False)

    class Meta:
        has_sensitive_variables = False
        soft_time_limit = 30
        time_limit = 60

    def run(self, who, times, loud, colour, tags, vrf, vrfs, attachment, address, network, settings):
        for _ in range(times):
            self.logger.info("hello %s", who.upper() if loud else who, extra={"grouping": "greetings"})
        if vrf is not None:
            self.logger.success("found %s", vrf, extra={"object": vrf})
        return {
            "who": who,
            "vrfs": [v.name for v in vrfs],
            "attachment": attachment.decode() if attachment else None,
            "network": network,
            "settings": settings,
        }


class Explode(Job):
    """Always fails."""

    class Meta:
        name = "Explode"

    def run(self):
        self.logger.info("about to fail")
        raise RuntimeError("boom")


class Sleepy(Job):
    """Runs past its soft time limit (a worker stops it)."""

    class Meta:
        soft_time_limit = 1
        time_limit = 20

    def run(self):
        import time

        time.sleep(10)


class Stuck(Job):
    """Ignores its soft limit's absence and hangs: the hard time limit kills it."""

    class Meta:
        time_limit = 2

    def run(self):
        import time

        time.sleep(30)


class Secretive(Job):
    password = StringVar()

    def run(self, password):
        return {"length": len(password)}


class ListVRFs(Job):
    """Logs and returns every VRF (a queryset), read through the model's manager, not `self.objects`."""

    class Meta:
        has_sensitive_variables = False

    def run(self):
        vrfs = VRF.objects.order_by("name")
        for vrf in vrfs:
            self.logger.info("VRF %s", vrf, extra={"object": vrf})
        return {"vrfs": vrfs}


class AuditTenants(JobHookReceiver):
    """Logs each tenant change it is called for (a job hook receiver)."""

    class Meta:
        has_sensitive_variables = False

    def receive_job_hook(self, change, action, changed_object):
        name = changed_object.name if changed_object is not None else change.object_repr
        self.logger.info("%s %s by %s", action, name, change.user_name)


class MarkChecked(JobButtonReceiver):
    """Marks the object its button was pressed on as checked (a job button receiver)."""

    class Meta:
        has_sensitive_variables = False

    def receive_job_button(self, obj):
        obj.description = "checked"
        obj.save()
        self.logger.success("checked %s", obj, extra={"object": obj})
