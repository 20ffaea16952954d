"""What a Git repository provides, loaded from its clone after a sync, laid out as the
reference lays it out:

    config_context_schemas/<file>.(json|yaml)          {"_metadata": {"name", ...}, "data_schema"}
    config_contexts/<file>.(json|yaml)                 a context, or a list: {"_metadata": {...}, data}
    config_contexts/<filter>/<name>.(json|yaml)        a context assigned to the object named <name>
    config_contexts/(devices|virtual_machines)/<name>  an object's local context data
    export_templates/<app_label>/<model>/<name>        a template for lists of that type
    graphql_queries/<name>[.gql]                       a saved query
    jobs/ or jobs.py                                   job classes (inventory/extras/gitjobs.py)

Objects loaded are owned by the repository (their `owner`), updated in place on the next sync and
removed when their file is gone (or the repository no longer provides their kind). A file that
cannot be loaded is an error in the job's log, naming the file; the sync then fails and nothing it
wrote is kept, as at the reference. Files are read only when they are regular files of the tree:
symbolic links and submodules are skipped with a warning, whatever they point at. Objects are
named, read and written as the job's user may."""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from queryengine.acting import readable

from . import gitcli
from .models import ConfigContext, ConfigContextSchema, ExportTemplate, GitRepository, GraphQLQuery

# Filters of a config context's `_metadata` and the directories assigning it by name.
CONTEXT_FILTERS = {
    "locations": "dcim.Location",
    "device_types": "dcim.DeviceType",
    "device_families": "dcim.DeviceFamily",
    "roles": "extras.Role",
    "platforms": "dcim.Platform",
    "cluster_groups": "virtualization.ClusterGroup",
    "clusters": "virtualization.Cluster",
    "tenant_groups": "tenancy.TenantGroup",
    "tenants": "tenancy.Tenant",
    "tags": "extras.Tag",
    "dynamic_groups": "extras.DynamicGroup",
    "device_redundancy_groups": "dcim.DeviceRedundancyGroup",
}
LOCAL_CONTEXTS = {"devices": "dcim.Device", "virtual_machines": "virtualization.VirtualMachine"}
APP_LABELS = (
    "circuits",
    "cloud",
    "dcim",
    "extras",
    "ipam",
    "tenancy",
    "users",
    "virtualization",
    "vpn",
    "wireless",
)


class Report:
    """Log entries of a sync, kept until its transaction is settled (entries written inside it
    would go with a rollback) and then handed to the job's logger."""

    def __init__(self):
        self.entries: list[tuple[str, str, object, str]] = []

    def add(self, level: str, message: str, obj=None, grouping: str = "main") -> None:
        self.entries.append((level, message, obj, grouping))

    def info(self, message, obj=None, grouping="main"):
        self.add("info", message, obj, grouping)

    def warning(self, message, obj=None, grouping="main"):
        self.add("warning", message, obj, grouping)

    def error(self, message, obj=None, grouping="main"):
        self.add("error", message, obj, grouping)

    @property
    def failed(self) -> bool:
        return any(level == "error" for level, *_ in self.entries)

    def replay(self, logger) -> None:
        for level, message, obj, grouping in self.entries:
            extra = {"grouping": grouping}
            if obj is not None and getattr(obj, "pk", None) is not None:
                extra["object"] = obj
            getattr(logger, level)("%s", message, extra=extra)
        self.entries.clear()


class NoAliases(yaml.SafeLoader):
    """YAML without anchors and aliases: a small file cannot stand for a huge document."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases are not allowed in repository files", event.start_mark
            )
        return super().compose_node(parent, index)


class Loader:
    """One sync's loading of a repository's contents into the database, as `user`."""

    def __init__(self, repository: GitRepository, user, report: Report):
        self.repository, self.user, self.report = repository, user, report
        self.root = Path(repository.filesystem_path)
        self.owner_type = ContentType.objects.get_for_model(GitRepository)
        self.links: set[str] = set()

    # -- files -------------------------------------------------------------------------------

    def files(self, relative: str, grouping: str) -> Iterator[tuple[str, Path]]:
        """(name, path) of the regular files directly in `relative` (sorted): links, submodules
        and anything that resolves outside the clone are skipped with a warning."""
        directory = self.root / relative
        if not self.is_directory(relative):
            return
        for entry in sorted(os.scandir(directory), key=lambda e: e.name):
            inner = f"{relative}/{entry.name}"
            if inner in self.links:
                self.report.warning(
                    f"`{inner}` is a symbolic link or submodule in the repository; ignored", grouping=grouping
                )
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            path = Path(entry.path)
            if not path.resolve().is_relative_to(self.root.resolve()):
                self.report.warning(f"`{inner}` is outside the repository; ignored", grouping=grouping)
                continue
            yield entry.name, path

    def directories(self, relative: str) -> list[str]:
        if not self.is_directory(relative):
            return []
        return sorted(
            e.name
            for e in os.scandir(self.root / relative)
            if e.is_dir(follow_symlinks=False) and f"{relative}/{e.name}" not in self.links
        )

    def is_directory(self, relative: str) -> bool:
        path = self.root / relative
        return (
            relative not in self.links
            and path.is_dir()
            and not path.is_symlink()
            and path.resolve().is_relative_to(self.root.resolve())
        )

    @staticmethod
    def read(path: Path) -> str:
        return gitcli.read_file(path).decode("utf8")

    def data(self, path: Path):
        """A JSON or YAML document (YAML is a superset of JSON)."""
        return yaml.load(self.read(path), Loader=NoAliases)  # noqa: S506 - a safe loader without aliases

    # -- objects -----------------------------------------------------------------------------

    def owned(self, model: type[models.Model]) -> models.QuerySet:
        return model.objects.filter(owner_content_type=self.owner_type, owner_object_id=self.repository.pk)

    def visible(self, label: str) -> models.QuerySet:
        from django.apps import apps

        return readable(apps.get_model(label), self.user)

    def find(self, label: str, lookups, context_name: str):
        """The one object of a type matching the given field values (plain fields only)."""
        from django.apps import apps

        model = apps.get_model(label)
        if not isinstance(lookups, dict) or not lookups:
            raise ValueError(f"{model.__name__} must be named by a mapping of field values, not {lookups!r}")
        names = {f.name for f in model._meta.concrete_fields}
        for key in lookups:
            if key not in names or not isinstance(lookups[key], str | int | float | bool):
                raise ValueError(f"{model.__name__} cannot be looked up by {key!r}")
        found = list(self.visible(label).filter(**lookups)[:2])
        if not found:
            raise ValueError(
                f"No matching {model.__name__} found for {lookups}; unable to create/update context {context_name}"
            )
        if len(found) > 1:
            raise ValueError(
                f"Multiple {model.__name__} found for {lookups}; unable to create/update context {context_name}"
            )
        return found[0]

    def foreign(self, model, name: str, what: str):
        """An object of another owner (or none) holding a name this repository wants."""
        other = model.objects.filter(name=name).exclude(
            owner_content_type=self.owner_type, owner_object_id=self.repository.pk
        )
        if other.exists():
            raise ValueError(f'A {what} named "{name}" already exists and is not provided by this repository')

    def store(self, instance) -> None:
        instance.full_clean()
        instance.save()

    def remove(self, model, keep: Callable, grouping: str, what: str) -> None:
        for record in self.owned(model):
            if not keep(record):
                label = str(record)
                record.delete()
                self.report.warning(f"Deleted {what} {label}", grouping=grouping)

    def provides(self, content: str) -> bool:
        return content in (self.repository.provided_contents or [])

    def attempt(self, grouping: str, message: str, work: Callable) -> None:
        """One file's work: a failure is an error naming it, the sync goes on with the next."""
        try:
            work()
        except ValidationError as exc:
            self.report.error(f"{message}: {'; '.join(_messages(exc))}", grouping=grouping)
        except (OSError, UnicodeDecodeError) as exc:
            self.report.error(f"{message}: {getattr(exc, 'strerror', None) or exc}", grouping=grouping)
        except Exception as exc:
            self.report.error(f"{message}: {exc}", grouping=grouping)

    # -- the contents, in the reference's order ----------------------------------------------

    def load(self) -> None:
        from .gitcli import symbolic_links

        self.links = symbolic_links(self.root)
        for name, step in (
            ("config context schemas", self.config_context_schemas),
            ("config contexts", self.config_contexts),
            ("jobs", self.jobs),
            ("export templates", self.export_templates),
            ("graphql queries", self.graphql_queries),
        ):
            self.report.info(f"Refreshing {name}...")
            step()

    def config_context_schemas(self) -> None:
        grouping = "config context schemas"
        if not self.provides("extras.configcontextschema"):
            self.remove(ConfigContextSchema, lambda r: False, grouping, "config context schema")
            return
        kept: set[str] = set()
        for file_name, path in self.files("config_context_schemas", grouping):
            self.report.info(f"Loading config context schema from `{file_name}`", grouping=grouping)

            def work(path=path):
                data = self.data(path)
                items = data if isinstance(data, list) else [data]
                if not isinstance(data, dict | list) or not all(isinstance(i, dict) for i in items):
                    raise ValueError("data must be a dict or a list of dicts")
                for item in items:
                    kept.add(self.schema(item, grouping))

            self.attempt(grouping, f"Error in loading config context schema data from `{file_name}`", work)
        self.remove(ConfigContextSchema, lambda r: r.name in kept, grouping, "config context schema")

    def schema(self, item: dict, grouping: str) -> str:
        metadata = _metadata(item)
        if "data_schema" not in item:
            raise ValueError("data is missing the required `data_schema` key.")
        name = str(metadata["name"])
        self.foreign(ConfigContextSchema, name, "config context schema")
        record = self.owned(ConfigContextSchema).filter(name=name).first()
        created = record is None
        if created:
            record = ConfigContextSchema(
                name=name, owner_content_type=self.owner_type, owner_object_id=self.repository.pk
            )
        values = {"description": str(metadata.get("description", "")), "data_schema": item["data_schema"]}
        self.save_changes(record, created, values, grouping, "config context schema")
        return name

    def save_changes(self, record, created: bool, values: dict, grouping: str, what: str, many=None) -> None:
        """Store what changed (nothing when nothing did: no change record for an unchanged object)."""
        changed = created
        for field, value in values.items():
            if getattr(record, field) != value:
                setattr(record, field, value)
                changed = True
        if changed:
            self.store(record)
        for field, objects in (many or {}).items():
            manager = getattr(record, field)
            if {o.pk for o in manager.all()} != {o.pk for o in objects}:
                manager.set(objects)
                changed = True
        if created:
            self.report.info(f"Successfully created {what}", record, grouping)
        elif changed:
            self.report.info(f"Successfully refreshed {what}", record, grouping)
        else:
            self.report.info(f"No change to {what}", record, grouping)

    def config_contexts(self) -> None:
        grouping = "config contexts"
        if not self.provides("extras.configcontext"):
            self.remove(ConfigContext, lambda r: False, grouping, "config context")
            self.clear_local_contexts(keep=lambda record: False)
            return
        for misplaced in (*CONTEXT_FILTERS, *LOCAL_CONTEXTS):
            if self.is_directory(misplaced):
                self.report.warning(
                    f'Found "{misplaced}" directory in the repository root. If this is meant to contain '
                    "config contexts, it should be moved into a `config_contexts/` subdirectory.",
                    grouping=grouping,
                )
        kept: set[str] = set()
        for file_name, path in self.files("config_contexts", grouping):
            self.report.info(f"Loading config context from `{file_name}`", grouping=grouping)

            def work(path=path):
                data = self.data(path)
                items = data if isinstance(data, list) else [data]
                if not isinstance(data, dict | list) or not all(isinstance(i, dict) for i in items):
                    raise ValueError("data must be a dict or list of dicts")
                for item in items:
                    kept.add(self.context(item, grouping))

            self.attempt(grouping, f"Error in loading config context data from `{file_name}`", work)
        for filter_type in CONTEXT_FILTERS:
            for file_name, path in self.files(f"config_contexts/{filter_type}", grouping):
                name = os.path.splitext(file_name)[0]
                self.report.info(
                    f'Loading config context, filter `{filter_type} = [name: "{name}"]`, '
                    f"from `{filter_type}/{file_name}`",
                    grouping=grouping,
                )

                def work(path=path, name=name, filter_type=filter_type):
                    data = self.data(path)
                    if not isinstance(data, dict):
                        raise ValueError("data must be a dict")
                    key = "model" if filter_type == "device_types" else "name"
                    metadata = data.setdefault("_metadata", {})
                    if not isinstance(metadata, dict):
                        raise ValueError("`_metadata` must be a dict")
                    metadata.setdefault(filter_type, []).append({key: name})
                    kept.add(self.context(data, grouping))

                self.attempt(grouping, f"Error in loading config context data from `{file_name}`", work)
        self.remove(ConfigContext, lambda r: r.name in kept, grouping, "config context")
        self.local_contexts()

    def context(self, item: dict, grouping: str) -> str:
        metadata = _metadata(item)
        name = str(metadata["name"])
        if "schema" in metadata and "config_context_schema" not in metadata:
            self.report.warning(
                "`schema` is deprecated in `_metadata`, please use `config_context_schema` instead.",
                grouping=grouping,
            )
            metadata["config_context_schema"] = metadata.pop("schema")
        many = {}
        for key, label in CONTEXT_FILTERS.items():
            named = metadata.get(key) or []
            if not isinstance(named, list):
                raise ValueError(f"`_metadata.{key}` must be a list")
            many[key] = [self.find(label, lookups, name) for lookups in named]
        schema = None
        if metadata.get("config_context_schema"):
            schema = (
                self.visible("extras.ConfigContextSchema")
                .filter(name=str(metadata["config_context_schema"]))
                .first()
            )
            if schema is None:
                raise ValueError(f"ConfigContextSchema {metadata['config_context_schema']} does not exist.")
        self.foreign(ConfigContext, name, "config context")
        record = self.owned(ConfigContext).filter(name=name).first()
        created = record is None
        if created:
            record = ConfigContext(
                name=name, owner_content_type=self.owner_type, owner_object_id=self.repository.pk
            )
        values = {
            "weight": metadata.get("weight", 1000),
            "description": metadata.get("description", ""),
            "is_active": metadata.get("is_active", True),
            "config_context_schema": schema,
            "data": {k: v for k, v in item.items() if k != "_metadata"},
        }
        self.save_changes(record, created, values, grouping, "config context", many)
        return name

    def local_contexts(self) -> None:
        grouping = "local config contexts"
        kept: dict[str, set[str]] = {kind: set() for kind in LOCAL_CONTEXTS}
        for kind, label in LOCAL_CONTEXTS.items():
            for file_name, path in self.files(f"config_contexts/{kind}", grouping):
                name = os.path.splitext(file_name)[0]
                self.report.info(
                    f"Loading local config context for `{name}` from `{kind}/{file_name}`", grouping=grouping
                )

                def work(path=path, name=name, kind=kind, label=label):
                    data = self.data(path)
                    found = list(self.visible(label).filter(name=name)[:2])
                    if not found:
                        raise ValueError("record not found!")
                    if len(found) > 1:
                        raise ValueError(
                            "multiple records with the same name found; unable to determine which one to apply to!"
                        )
                    self.local_context(found[0], data, grouping)
                    kept[kind].add(name)

                self.attempt(
                    grouping, f"Error in loading local config context from `{kind}/{file_name}`", work
                )
        self.clear_local_contexts(keep=lambda record: record.name in kept[_kind(record)])

    def local_context(self, record, data, grouping: str) -> None:
        owner = (
            record.local_config_context_data_owner_content_type_id,
            record.local_config_context_data_owner_object_id,
        )
        if owner[1] is not None and owner != (self.owner_type.pk, self.repository.pk):
            self.report.error("DATA CONFLICT: Local context data is owned by another owner", record, grouping)
            return
        if record.local_config_context_data == data and owner[1] is not None:
            self.report.info("No change to local config context", record, grouping)
            return
        record.local_config_context_data = data
        record.local_config_context_data_owner_content_type = self.owner_type
        record.local_config_context_data_owner_object_id = self.repository.pk
        self.store(record)
        self.report.info("Successfully updated local config context", record, grouping)

    def clear_local_contexts(self, keep: Callable) -> None:
        from django.apps import apps

        for label in LOCAL_CONTEXTS.values():
            model = apps.get_model(label)
            for record in model.objects.filter(
                local_config_context_data_owner_content_type=self.owner_type,
                local_config_context_data_owner_object_id=self.repository.pk,
            ):
                if keep(record):
                    continue
                record.local_config_context_data = None
                record.local_config_context_data_owner_content_type = None
                record.local_config_context_data_owner_object_id = None
                record.save()
                self.report.warning("Deleted local config context", record, "local config contexts")

    def jobs(self) -> None:
        from .gitjobs import refresh

        refresh(self)

    def export_templates(self) -> None:
        grouping = "export templates"
        if not self.provides("extras.exporttemplate"):
            self.remove(ExportTemplate, lambda r: False, grouping, "export template")
            return
        for app_label in APP_LABELS:
            if self.is_directory(app_label):
                self.report.warning(
                    f'Found "{app_label}" directory in the repository root. If this is meant to contain '
                    "export templates, it should be moved into an `export_templates/` subdirectory.",
                    grouping=grouping,
                )
        kept: set[tuple[int, str]] = set()
        for app_label in self.directories("export_templates"):
            for model_name in self.directories(f"export_templates/{app_label}"):
                kind = ContentType.objects.filter(app_label=app_label, model=model_name).first()
                if kind is None:
                    self.report.warning(
                        f"Skipping `{app_label}.{model_name}` as it isn't a known content type",
                        grouping=grouping,
                    )
                    continue
                for file_name, path in self.files(f"export_templates/{app_label}/{model_name}", grouping):
                    self.report.info(
                        f"Loading `{app_label}.{model_name}` export template from `{file_name}`",
                        grouping=grouping,
                    )
                    kept.add((kind.pk, file_name))
                    self.attempt(
                        grouping,
                        f"Error in loading export template `{app_label}/{model_name}/{file_name}`",
                        lambda kind=kind, file_name=file_name, path=path: self.template(
                            kind, file_name, path
                        ),
                    )
        self.remove(
            ExportTemplate, lambda r: (r.content_type_id, r.name) in kept, grouping, "export template"
        )

    def template(self, kind, file_name: str, path: Path) -> None:
        grouping = "export templates"
        code = self.read(path)
        others = ExportTemplate.objects.filter(content_type=kind, name=file_name).exclude(
            owner_content_type=self.owner_type, owner_object_id=self.repository.pk
        )
        if others.exists():
            raise ValueError(
                f'An export template named "{file_name}" already exists for {kind.app_label}.{kind.model}'
            )
        record = self.owned(ExportTemplate).filter(content_type=kind, name=file_name).first()
        created = record is None
        if created:
            record = ExportTemplate(
                content_type=kind,
                name=file_name,
                owner_content_type=self.owner_type,
                owner_object_id=self.repository.pk,
            )
        values = {
            "template_code": code,
            "mime_type": mimetypes.guess_type(file_name)[0] or "text/plain",
            "file_extension": file_name.rsplit(".", 1)[-1],
        }
        self.save_changes(record, created, values, grouping, "export template")

    def graphql_queries(self) -> None:
        grouping = "graphql queries"
        if not self.provides("extras.graphqlquery"):
            self.remove(GraphQLQuery, lambda r: False, grouping, "GraphQL query")
            return
        kept: set[str] = set()
        for file_name, path in self.files("graphql_queries", grouping):
            name = file_name.removesuffix(".gql")
            kept.add(name)

            def work(path=path, name=name):
                text = self.read(path).strip()
                self.foreign(GraphQLQuery, name, "GraphQL query")
                record = self.owned(GraphQLQuery).filter(name=name).first()
                created = record is None
                if created:
                    record = GraphQLQuery(
                        name=name, owner_content_type=self.owner_type, owner_object_id=self.repository.pk
                    )
                self.save_changes(record, created, {"query": text}, grouping, f"GraphQL query: {name}")

            self.attempt(grouping, f"Error processing GraphQL query file '{file_name}'", work)
        self.remove(GraphQLQuery, lambda r: r.name in kept, grouping, "GraphQL query")


def _messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{field}: {' '.join(messages)}" for field, messages in exc.message_dict.items()]
    return exc.messages


def _metadata(item: dict) -> dict:
    metadata = item.get("_metadata")
    if metadata is None:
        raise ValueError("data is missing the required `_metadata` key.")
    if not isinstance(metadata, dict) or "name" not in metadata:
        raise ValueError("data `_metadata` is missing the required `name` key.")
    return metadata


def _kind(record) -> str:
    return "devices" if record._meta.model_name == "device" else "virtual_machines"


def unload(pks: list) -> None:
    """Everything the given repositories provided goes (they are being deleted)."""
    from django.apps import apps

    owner_type = ContentType.objects.get_for_model(GitRepository)
    owned = {"owner_content_type": owner_type, "owner_object_id__in": pks}
    for model in (ConfigContext, ConfigContextSchema, ExportTemplate, GraphQLQuery):
        model.objects.filter(**owned).delete()
    for label in LOCAL_CONTEXTS.values():
        apps.get_model(label).objects.filter(
            local_config_context_data_owner_content_type=owner_type,
            local_config_context_data_owner_object_id__in=pks,
        ).update(
            local_config_context_data=None,
            local_config_context_data_owner_content_type=None,
            local_config_context_data_owner_object_id=None,
        )
