"""The `Job` base class and its typed variables.

A job is a class with variables as class attributes and a `run(self, **data)` method:

    class Rename(Job):
        pattern = StringVar(description="regular expression")
        dryrun = DryRunVar()

        class Meta:
            name = "Bulk rename"

        def run(self, pattern, dryrun):
            self.logger.info("renamed %s", obj, extra={"object": obj})

Variables clean the `data` a run request gives (errors name the variable) and describe the form
(`jobs/<id>/variables/`). Cleaned values of object variables are model instances; the task
queue carries them as primary keys (`serialize`) and the worker turns them back (`deserialize`).

A job runs for the user who started it (`self.user`; a scheduled job: the user who scheduled
it, with the permissions they hold when it runs). Object variables name only objects that user
may view; `self.objects(Model)` reads what they may view; `create_objects`, `update_objects`
and `delete_objects` write as the API writes for them (permissions, all or none, change log).
Saves and deletes a job makes through the ORM are held to the same permissions, and log
entries and results never name an object the user may not view.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import logging

from django.contrib.auth.models import AnonymousUser
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError

from queryengine.acting import readable, write_as
from queryengine.jsondepth import too_deep, too_deep_message

REQUIRED = "This field is required."


class ScriptVariable:
    """One input of a job: cleans a JSON value, describes itself for the form."""

    def __init__(self, label: str = "", description: str = "", default=None, required: bool = True):
        self.label, self.description, self.default = label, description, default
        self.required = required and default is None

    def describe(self, name: str) -> dict:
        entry = {"name": name, "type": type(self).__name__, "label": self.label or name.replace("_", " ")}
        entry["help_text"] = self.description
        entry["required"] = self.required
        entry.update(self.extra())
        if self.default is not None:
            entry["default"] = self.default
        return entry

    def extra(self) -> dict:
        return {}

    def clean(self, value, user):
        """The value as the job receives it; `user` is the one who runs the job."""
        if value is None or value == "" or value == []:
            if self.required:
                raise ValidationError(REQUIRED)
            return self.default
        return self.clean_value(value)

    def clean_value(self, value):
        return value

    def serialize(self, value):
        return value

    def deserialize(self, value, user):
        return value


class StringVar(ScriptVariable):
    def __init__(self, min_length: int | None = None, max_length: int | None = None, regex=None, **kwargs):
        super().__init__(**kwargs)
        self.min_length, self.max_length, self.regex = min_length, max_length, regex

    def extra(self) -> dict:
        return {k: v for k, v in (("min_length", self.min_length), ("max_length", self.max_length)) if v}

    def clean_value(self, value):
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ValidationError("Enter a valid string.")
        value = str(value)
        if self.min_length and len(value) < self.min_length:
            raise ValidationError(f"Ensure this value has at least {self.min_length} characters.")
        if self.max_length and len(value) > self.max_length:
            raise ValidationError(f"Ensure this value has at most {self.max_length} characters.")
        if self.regex:
            import re

            if not re.search(self.regex, value):
                raise ValidationError("Invalid value.")
        return value


class TextVar(StringVar):
    pass


class IntegerVar(ScriptVariable):
    def __init__(self, min_value: int | None = None, max_value: int | None = None, **kwargs):
        super().__init__(**kwargs)
        self.min_value, self.max_value = min_value, max_value

    def extra(self) -> dict:
        return {
            k: v for k, v in (("min_value", self.min_value), ("max_value", self.max_value)) if v is not None
        }

    def clean_value(self, value):
        try:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            number = int(value)
        except (TypeError, ValueError):
            raise ValidationError("Enter a whole number.") from None
        if self.min_value is not None and number < self.min_value:
            raise ValidationError(f"Ensure this value is greater than or equal to {self.min_value}.")
        if self.max_value is not None and number > self.max_value:
            raise ValidationError(f"Ensure this value is less than or equal to {self.max_value}.")
        return number


class BooleanVar(ScriptVariable):
    def __init__(self, **kwargs):
        kwargs.setdefault("default", False)
        super().__init__(**kwargs)
        self.required = False

    def clean(self, value, user):
        if value is None or value == "":
            return bool(self.default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in {"true", "false", "1", "0"}:
            return value.lower() in {"true", "1"}
        raise ValidationError("Must be a boolean.")


class DryRunVar(BooleanVar):
    """The `dryrun` flag: the job reports what it would change and changes nothing."""

    def __init__(self, **kwargs):
        kwargs.setdefault("description", "Check the changes without saving them.")
        super().__init__(**kwargs)


class ChoiceVar(ScriptVariable):
    def __init__(self, choices, **kwargs):
        super().__init__(**kwargs)
        self.choices = [tuple(c) if isinstance(c, list | tuple) else (c, c) for c in choices]

    def extra(self) -> dict:
        return {"choices": [list(c) for c in self.choices]}

    def clean_value(self, value):
        if str(value) not in {str(v) for v, _ in self.choices}:
            raise ValidationError(f"Select a valid choice. {value} is not one of the available choices.")
        return next(v for v, _ in self.choices if str(v) == str(value))


class MultiChoiceVar(ChoiceVar):
    def clean_value(self, value):
        values = value if isinstance(value, list) else [value]
        return [super(MultiChoiceVar, self).clean_value(v) for v in values]


class ObjectVar(ScriptVariable):
    """An object of a model, given by its id (or `{"id": …}`; a content type also as
    `"dcim.device"`): one the running user may view, within `query_params`."""

    def __init__(self, model, query_params: dict | None = None, **kwargs):
        super().__init__(**kwargs)
        self.model, self.query_params = model, query_params or {}

    def extra(self) -> dict:
        return {"model": f"{self.model._meta.app_label}.{self.model._meta.model_name}"}

    def queryset(self, user):
        return readable(self.model, user).filter(**self.query_params)

    def one(self, value, user):
        """The object `value` names; one the user may not view is not a choice, as a missing one."""
        pk = value.get("id") if isinstance(value, dict) else value
        try:
            if self.model is ContentType and isinstance(pk, str) and "." in pk:  # "dcim.device"
                app_label, model = pk.split(".", 1)
                return self.queryset(user).get(app_label=app_label, model=model)
            return self.queryset(user).get(pk=self.model._meta.pk.to_python(pk))
        except (ValueError, TypeError, ValidationError, self.model.DoesNotExist):
            raise ValidationError(
                "Select a valid choice. That choice is not one of the available choices."
            ) from None

    def clean(self, value, user):
        if value is None or value == "" or value == []:
            return super().clean(value, user)
        return self.one(value, user)

    def serialize(self, value):
        return None if value is None else str(value.pk)

    def deserialize(self, value, user):
        """The object again when the job runs, checked against the user's permissions then."""
        return None if value is None else self.one(value, user)


class MultiObjectVar(ObjectVar):
    def clean(self, value, user):
        if value is None or value == "" or value == []:
            return super().clean(value, user)
        return [self.one(v, user) for v in (value if isinstance(value, list) else [value])]

    def serialize(self, value):
        return [str(v.pk) for v in value or []]

    def deserialize(self, value, user):
        """The objects still there that the user may still view, in the given order."""
        objects = {str(o.pk): o for o in self.queryset(user).filter(pk__in=value or [])}
        return [objects[pk] for pk in value or [] if pk in objects]


class FileVar(ScriptVariable):
    """A small file, given as base64 text in JSON (the job receives bytes)."""

    def clean_value(self, value):
        if not isinstance(value, str):
            raise ValidationError("No file was submitted. Check the encoding type on the form.")
        try:
            base64.b64decode(value, validate=True)
        except ValueError:
            raise ValidationError("The submitted file is not valid base64.") from None
        return value

    def deserialize(self, value, user):
        return None if value is None else base64.b64decode(value)


class IPAddressVar(ScriptVariable):
    def clean_value(self, value):
        try:
            return str(ipaddress.ip_address(str(value)))
        except ValueError:
            raise ValidationError("Invalid IPv4/IPv6 address format.") from None


class IPAddressWithMaskVar(ScriptVariable):
    def clean_value(self, value):
        try:
            return str(ipaddress.ip_interface(str(value)))
        except ValueError:
            raise ValidationError("Invalid IPv4/IPv6 address with mask format.") from None


class IPNetworkVar(ScriptVariable):
    def clean_value(self, value):
        try:
            return str(ipaddress.ip_network(str(value), strict=True))
        except ValueError:
            raise ValidationError("Invalid IP network format.") from None


class JSONVar(ScriptVariable):
    def clean_value(self, value):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except (ValueError, RecursionError):
                raise ValidationError("Enter a valid JSON.") from None
        if too_deep(value):
            raise ValidationError(too_deep_message())
        return value


class Job:
    """Base of every job. `Meta` may set name, description, grouping (default: the module's
    `name`), has_sensitive_variables (default True, as the reference), dryrun_default,
    soft_time_limit, time_limit, task_queues, hidden, read_only, is_singleton."""

    class Meta:
        pass

    def __init__(self, job_result=None, logger: logging.Logger | None = None, user=None):
        self.job_result = job_result
        self.logger = logger or logging.getLogger(f"inventory.jobs.{type(self).__name__}")
        # Whom the job reads and writes for; no one (nothing restricted) when nobody started it.
        self.user = user or getattr(job_result, "user", None) or AnonymousUser()

    def run(self, **data):
        raise NotImplementedError

    def objects(self, model):
        """The objects of `model` the job's user may view: what a job reads and reports on."""
        return readable(model, self.user)

    def create_objects(self, model, items: list[dict]) -> list:
        """Create objects from API data (as a POST's items) for the job's user: refused
        (PermissionDenied, ValidationFailed) as the API refuses it, all or none, change-logged."""
        return write_as(self.user, "create", model, {"data": items})

    def update_objects(self, model, items: list[dict], partial: bool = True) -> list:
        """Change objects (items with their `id`, as a PATCH's) for the job's user: only objects
        they may change (others are NotFound) that stay within what they may change."""
        return write_as(self.user, "update", model, {"data": items, "partial": partial})

    def delete_objects(self, model, ids: list) -> int:
        """Delete the objects with these ids that the job's user may delete (others: NotFound)."""
        return write_as(self.user, "delete", model, {"ids": [str(pk) for pk in ids]})

    def create_file(self, filename: str, content: str | bytes):
        """Keep a file the job made (an export) with its result, downloadable through
        `extras/file-proxies/<id>/download/`; at most JOB_FILE_MAX_SIZE bytes."""
        from django.conf import settings

        from .models import FileProxy

        if isinstance(content, str):
            content = content.encode()
        if len(content) > settings.JOB_FILE_MAX_SIZE:
            raise ValueError(
                f"Provided {len(content)} bytes of content, but JOB_FILE_MAX_SIZE is {settings.JOB_FILE_MAX_SIZE}"
            )
        file = FileProxy.objects.create(name=filename, job_result=self.job_result, content=content)
        self.logger.info("Created file %s (/api/extras/file-proxies/%s/download/)", filename, file.pk)
        return file

    @classmethod
    def meta(cls, name: str, default=None):
        return getattr(cls.Meta, name, default)

    @classmethod
    def variables(cls) -> dict[str, ScriptVariable]:
        found = {}
        for klass in reversed(cls.__mro__):
            found.update({k: v for k, v in vars(klass).items() if isinstance(v, ScriptVariable)})
        return found

    @classmethod
    def supports_dryrun(cls) -> bool:
        return isinstance(cls.variables().get("dryrun"), DryRunVar)

    @classmethod
    def clean_data(cls, data, user) -> dict:
        """Cleaned values by name, or ValidationError({name: [message]}) naming each bad variable;
        objects are those `user` (who runs the job) may view."""
        if not isinstance(data, dict):
            raise ValidationError({"data": ["Job data needs to be a dict"]})
        variables = cls.variables()
        errors = {k: ["Job data contained an unknown property"] for k in data if k not in variables}
        cleaned = {}
        for name, variable in variables.items():
            try:
                cleaned[name] = variable.clean(data.get(name), user)
            except ValidationError as exc:
                errors[name] = exc.messages
        if errors:
            raise ValidationError(errors)
        return cleaned

    @classmethod
    def serialize(cls, cleaned: dict) -> dict:
        variables = cls.variables()
        return {k: variables[k].serialize(v) for k, v in cleaned.items()}

    @classmethod
    def deserialize(cls, data: dict, user) -> dict:
        """The values a run was given, for `user` as they are now: an object they may no longer
        view fails the run, naming its variable."""
        variables = cls.variables()
        values = {}
        for name, value in data.items():
            if name in variables:
                try:
                    values[name] = variables[name].deserialize(value, user)
                except ValidationError as exc:
                    raise ValueError(f"{name}: {' '.join(exc.messages)}") from None
        return values


class JobHookReceiver(Job):
    """A job run by job hooks (`extras/job-hooks`) when objects of their types change: it is
    given the change record and implements `receive_job_hook`."""

    object_change = StringVar(description="The id of the change record that triggered the hook")

    def run(self, object_change):
        from django.apps import apps

        change = apps.get_model("extras", "ObjectChange").objects.get(pk=object_change)
        kind = change.changed_object_type.model_class()
        # The object as the user who changed it may view it now (None: gone or hidden).
        changed = self.objects(kind).filter(pk=change.changed_object_id).first() if kind else None
        self.receive_job_hook(change, change.action, changed)

    def receive_job_hook(self, change, action: str, changed_object) -> None:
        raise NotImplementedError


class JobButtonReceiver(Job):
    """A job run by job buttons (`extras/job-buttons`) for one object: run it with
    `{"object_pk": …, "object_model_name": "dcim.device"}` and implement `receive_job_button`."""

    object_pk = StringVar()
    object_model_name = StringVar()

    def run(self, object_pk, object_model_name):
        from django.apps import apps

        try:
            model = apps.get_model(object_model_name)
        except (LookupError, ValueError):
            raise ValueError(f"{object_model_name} is not an object type") from None
        try:
            obj = self.objects(model).get(pk=model._meta.pk.to_python(object_pk))
        except (ValidationError, model.DoesNotExist):
            # The same answer for a hidden object as for a missing one.
            raise ValueError(f"No {model._meta.verbose_name} matches {object_pk}") from None
        self.receive_job_button(obj)

    def receive_job_button(self, obj) -> None:
        raise NotImplementedError
