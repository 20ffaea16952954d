"""The model registry: one declaration per model, from which everything else is derived.

A `Resource` names a model's REST route and the few facts that cannot be read off the model
itself (how its label is built, which counts it shows, how free-text search works). Fields,
their GraphQL types, filters, sortable columns and nesting are all introspected from the model,
so adding a model is a model class plus one `register(Resource(...))` line.
"""

from __future__ import annotations

import importlib
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import models

# Field kinds a resource exposes; the GraphQL schema, compiler and filters switch on these.
SCALAR, FOREIGN_KEY, MANY_TO_MANY, CONTENT_TYPE, CONTENT_TYPES, GENERIC, COMPUTED, REVERSE, INCLUDED = (
    "scalar",
    "fk",
    "m2m",
    "content_type",
    "content_types",
    "generic",
    "computed",
    "reverse",
    "included",
)
# A related object found through other columns (API 1.x: a device's site, the Site-type location
# at or above its location), read by a page loader.
DERIVED = "derived"
# A stored file (a model's FileField): shown as the URL it is served at, written as an upload
# (queryengine.uploads).
FILE = "file"
# Kinds shown as lists of related objects (left out at depth > 0 and, from 3.0, by default).
LIST_KINDS = (MANY_TO_MANY, CONTENT_TYPES, REVERSE)
# A generic relation's targets when it may point at an object of any registered type.
ANY_TYPE = "*"


@dataclass(frozen=True)
class Display:
    """A label built from column values: `columns` are ORM paths relative to the object. Labels
    that need other objects' labels (an association names both its ends) come from
    `load(ids) -> {id: label}`, called once per page instead."""

    columns: tuple[str, ...] = ("name",)
    render: Callable[..., str] = str
    load: Callable | None = None


@dataclass(frozen=True)
class Computed:
    """A value shown (and optionally written) through other columns, e.g. a CIDR string
    stored as version, network bytes and prefix length. `render(*columns)` builds it."""

    columns: tuple[str, ...]
    render: Callable
    output: str = "string"  # string | integer | object
    write: Callable | None = None  # (instance, value) -> None; raises ValueError
    required: bool = False
    order_by: tuple[str, ...] = ()
    help_text: str = ""  # described in OPTIONS, as a model field's
    # How OPTIONS and the OpenAPI document describe a value whose output type says too little (a
    # list of choices): OPTIONS entries beside required/read_only/label, and the JSON schemas of
    # what reads show and writes take (None: derived from `output`). Descriptions only: left out
    # of comparing and hashing (dicts), which the value's columns and functions decide.
    options: dict | None = field(default=None, compare=False)
    read_schema: dict | None = field(default=None, compare=False)
    write_schema: dict | None = field(default=None, compare=False)


@dataclass(frozen=True)
class CustomFilter:
    """A filter that is not a plain field lookup: `build(parsed values) -> Q` (values are ORed).

    `oracle(obj, parsed values) -> bool` says the same in Python and `samples` are values worth
    trying, or `samples(objects) -> values` where they live in the database: the generic tests check
    every declared filter against its oracle.

    `reader`: what it selects depends on who reads (stages awaiting their approval), so `build`
    and `oracle` take the reading user as a last argument: anonymous, or None where no one reads
    (a stored filter). `boolean`: one true or false value, as the reference's boolean filters:
    GraphQL takes a `Boolean`, REST the last value given (parse with `parse_bool`).

    `negated`: also `<name>__n`, the objects matching none of the values. `present() -> Q`: also
    `<name>__isnull` (a boolean), true selecting the objects `present` does not. `argument`: the
    GraphQL type of a filter taking one value (the last given: "String", "Int") or numbers
    ("[Int]"), as the reference types it; None: a list of strings. `refusal`: why it cannot apply
    here (every use a 400 saying so, Filter.refusal)."""

    build: Callable
    parse: Callable | None = None
    oracle: Callable | None = None
    samples: tuple | Callable = ()
    reader: bool = False
    boolean: bool = False
    negated: bool = False
    present: Callable | None = None
    argument: str | None = None
    refusal: str = ""


@dataclass(frozen=True)
class Included:
    """A value shown only when asked for (`include=<name>`, spec §4.3), at the top level, and read
    for a whole page at once: relationships, computed fields, config contexts.

    `applies(resource)` says which resources show it. `load(resource, ids, base, depth, viewer)`
    returns {id: JSON-ready value} for a page of object ids (text), `base` being the API's absolute
    URL (values may hold orjson fragments: objects rendered by the engine), showing of other
    objects what `viewer` (query.Viewer, None: everything) may see; objects it leaves out show
    `empty()`. `write(resource, instance, value, adding, state)`, when given, stores a written value
    once the object is saved (value None: not given), raising ValidationError; `state` is a dict
    shared by one write's objects. `output`: GraphQL's type of it, any JSON value at a `depth`
    ("object") or a boolean never null ("boolean": a path's `origin_fans_out`)."""

    applies: Callable
    load: Callable
    empty: Callable = dict
    write: Callable | None = None
    output: str = "object"
    schema: dict | None = field(default=None, hash=False, compare=False)  # OpenAPI's, when not an object


@dataclass(frozen=True)
class Derived:
    """A related object found through another: `source` is the ORM path of an id column and
    `find(ids) -> {id: target id}` maps a page's source ids (text) at once, with a handful of
    queries whatever the page size (None: the column holds the target's id, as a path through
    other objects' foreign keys reads it). `target` names the related model ("dcim.Site"). A
    value written to it at API 1.x is written to the foreign key `writes` instead (None:
    read-only)."""

    target: str
    source: str
    find: Callable | None
    writes: str | None = None
    # ORM paths read with each object whose text values are passed to `find(ids, {id: values})`,
    # sparing it a query (a location's parent and type: only its ancestors remain to be read).
    hints: tuple[str, ...] = ()

    @property
    def model(self) -> type[models.Model]:
        return apps.get_model(self.target)


@dataclass(frozen=True)
class GenericList:
    """The list a resource's objects make on each object they point at through a generic relation
    (`type_field`, `id_field`): a contact association's `associated_contacts` on every object
    that takes contacts. `applies(resource)` says which resources show it."""

    type_field: str
    id_field: str
    applies: Callable


def every_object(resource) -> bool:
    return True


@dataclass(frozen=True)
class Legacy:
    """How API 1.x (spec §9: nested serializers, `brief`, slugs, value/label choices) shows a
    resource, beyond what every resource's 1.x form derives from its fields.

    `nested` lists the fields of the 1.x nested form (related objects, and every object with
    `brief=1`) after id, url and display, by their 1.x names; an entry `"key: field"` is shown
    as written (an alias). Left None, the nested form shows the natural key and the slug.
    `renamed` maps 1.x names to field names (`device_role` -> `role`, `_depth` -> `tree_depth`);
    `fields` adds values only 1.x shows (a prefix's `site`, `is_pool`); `hidden` names fields 1.x
    does not show; `since` the first 1.x version showing a field (an interface's status: 1.3);
    `choices` the related objects shown as {value, label} (their slug and name); `filters` the
    filters only 1.x takes (`site=<slug>`). An Included among `fields` is read a page at a time
    and written after the object is saved (an IP address's assigned object). A resource shown
    as {value, label} wherever it is related (statuses) says `as_choice`. `created_is_date`:
    1.x showed `created` as a date."""

    nested: tuple[str, ...] | None = None
    renamed: dict[str, str] = field(default_factory=dict)
    fields: dict[str, object] = field(default_factory=dict)  # name -> Computed | Derived | Included
    # Values 1.x writes as two fields that are one here: name -> (type field, id field).
    together: dict[str, tuple[str, str]] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()
    since: dict[str, str] = field(default_factory=dict)
    choices: tuple[str, ...] = ()
    filters: dict[str, CustomFilter] = field(default_factory=dict)
    as_choice: bool = False
    # Values a 1.x create takes when not given (a callable: worked out for each write).
    defaults: dict = field(default_factory=dict)
    created_is_date: bool = True
    only: tuple[str, ...] = ("slug",)  # model fields only 1.x shows

    def name_of(self, field_name: str) -> str:
        """The 1.x name of a field."""
        return self.shown_as.get(field_name, field_name)

    @cached_property
    def shown_as(self) -> dict[str, str]:
        return {field_name: old for old, field_name in self.renamed.items()}


def date_text(value) -> str | None:
    """A timestamp's date (API 1.x showed `created` as a date)."""
    return None if value is None else value.date().isoformat()


# A twin's name is its field's with this suffix (queryengine.twins; no model field has `__`).
TWIN_SUFFIX = "__rest"


@dataclass(frozen=True)
class FieldSpec:
    name: str
    kind: str
    model_field: models.Field | None = None
    target: type[models.Model] | None = None  # related model of fk and m2m fields
    columns: tuple[str, ...] = ()  # the ORM paths a generic relation reads
    computed: Computed | None = None
    targets: tuple[str, ...] = ()  # object types a generic relation may point at (nested by depth)
    included: Included | None = None
    derived: Derived | None = None
    legacy: bool = False  # shown by API 1.x only (slugs, a device's site)
    # GraphQL shows a declared list under the field's name (Resource.lists: a secrets group's
    # `secrets`, the secrets), and this, REST's form, as its twin `<name>__rest` (twins).
    displaced: bool = False

    @property
    def nullable(self) -> bool:
        return self.model_field is None or self.model_field.null

    @property
    def key(self) -> str:
        """The name GraphQL shows the field under: its twin's when displaced."""
        return f"{self.name}{TWIN_SUFFIX}" if self.displaced else self.name

    @cached_property
    def choices(self) -> dict | None:
        """value -> label of a field with choices, shown as {value, label} (None: not a choice field)."""
        if self.kind != SCALAR or not self.model_field.choices:
            return None
        if getattr(self.model_field, "shown_as_value", False):
            return None
        return {value: str(label) for value, label in self.model_field.flatchoices}

    @cached_property
    def render_choice(self) -> Callable:
        labels = self.choices

        def render(value):
            return (
                None if value is None or value == "" else {"value": value, "label": labels.get(value, value)}
            )

        return render

    @property
    def target_resources(self) -> list[Resource]:
        """The resources a generic relation may point at: those named, or every registered
        one with a UUID key for ANY_TYPE (a change record's object)."""
        if self.targets == (ANY_TYPE,):  # those of today's API (not 1.x's regions and sites)
            return [r for r in resources() if not r.integer_pk and r.versions is None and r.routed]
        return [t for t in map(resource_by_object_type, self.targets) if t is not None]


@dataclass(eq=False)  # identity hashing: resources key caches
class Resource:
    model: type[models.Model]
    route: str  # "<app>/<endpoint>", e.g. "dcim/locations"
    display: Display = field(default_factory=Display)
    search: tuple[str, ...] = ("name", "description")
    # The fields the `q` of these objects' connection list searches (console and power
    # connections: the port's name or its device's, as the reference's), where it differs from
    # their own list's: the list's GraphQL argument `connection_q`, which their REST list does
    # not take.
    connection_search: tuple[str, ...] = ()
    # Derived related-object counts: name -> "<app_label>.<Model>.<path to this model>", counting
    # the objects of <Model> the reader may view; a count through an association names the far
    # model and the path through it ("ipam.IPAddress.interface_assignments__interface"), so it
    # follows the addresses' permissions, not the assignments'. A model not yet installed counts
    # as zero so the representation is stable as the inventory grows.
    counts: dict[str, str] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()  # model fields never shown
    # Secrets shown once, in the answer to the write that made them (a token's key), and never
    # again: every other read shows them as null, and templates never see them.
    shown_once: tuple[str, ...] = ()
    # name -> (type field, id field) or (type field, id field, object types it may point at):
    # with its targets named, a generic relation nests like a foreign key at depth > 0.
    generic: dict[str, tuple] = field(default_factory=dict)
    # Generic relations GraphQL also shows as one field per type they may point at, each the
    # object when it is of that type, else null: name -> (field prefix, object types); a cable
    # end's ("cable_peer", ("dcim.interface", ...)) gives `cable_peer_interface`, ...
    generic_by_type: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    # Generic relations that may outlive their object (a change record's changed object): null
    # once it is gone. Others are removed with their object (deletion hooks), never dangling.
    dangling: tuple[str, ...] = ()
    scope: Callable | None = None  # (queryset, user) -> queryset, applied to every read
    natural_key: str | None = "name"  # a unique field that identifies an object by value
    # The default order where the model declares none of its own (Django's groups: by name).
    ordering: tuple[str, ...] = ()
    natural_slug: bool = True  # shown (`natural_slug`), as on the reference's models (not content types)
    read_only: tuple[str, ...] = ()  # shown but never written by clients
    # Fields only superusers set (a user's is_superuser, groups): anyone else's write giving one a
    # value other than the stored one (on create, the default) is refused (403); what a read
    # showed may be written back.
    superuser_fields: tuple[str, ...] = ()
    # Objects only superusers create, change or delete, whatever permissions others hold (groups
    # and object permissions: writing them grants access).
    superuser_writes: bool = False
    # Written by clients but not shown from API 2.x on (an address's namespace: the reference
    # takes it and shows the parent instead); API 1.x shows what its own shape holds.
    write_only: tuple[str, ...] = ()
    # Fields some API versions show and others do not, named by rows of the version table
    # (rest/versioning.CHANGES): name -> (feature from whose version it is shown, feature from
    # whose version it is no longer shown), None for no bound. A VLAN's one `location` up to
    # 2.1 (write-only after), its `locations` from 2.2, as the reference's legacy serializers.
    versioned: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    # Versioned fields shown as the one object of a list field: name -> list field. A VLAN's
    # 2.0 `location` is the one of its `locations` (null without any); an object with several
    # cannot be shown at such a version (412), as the reference's legacy serializers.
    single_of: dict[str, str] = field(default_factory=dict)
    owner_field: str | None = None  # set to the requesting user on create
    # A user written by clients that a create leaving it out sets to the requesting user.
    owner_default: str | None = None
    view_permission: bool = True  # False: any signed-in user may read (their scope still applies)
    computed: dict[str, Computed] = field(default_factory=dict)  # shown before the model fields
    reverse: dict[str, str] = field(default_factory=dict)  # name -> "<Model>.<fk>" pointing here
    # Further lists of related objects GraphQL shows: name -> "<app_label>.<Model>.<path to this
    # model>", the members and the ORM path from them to their owner (a device's `all_modules`:
    # "dcim.Module.parent_module_bay__parent_device"). A field's name among them: GraphQL shows
    # the list there, as the reference's schema does, and the field (what REST shows) as its twin.
    lists: dict[str, str] = field(default_factory=dict)
    # The names the reference gives the lists this model's foreign keys make on the objects they
    # point at, where no rule derives them from the ORM's (relationnames.reference_name): {foreign
    # key: name}, a VM interface's {"parent_interface": "child_interfaces"}.
    list_names: dict[str, str] = field(default_factory=dict)
    # Lists of this resource's objects GraphQL shows on the objects they point at: name -> GenericList.
    generic_lists: dict[str, GenericList] = field(default_factory=dict)
    filters: dict[str, CustomFilter] = field(default_factory=dict)
    search_q: Callable | None = None  # str -> Q, replacing the `search` fields' icontains
    # Filters by a related object further away: name -> ORM path (`manufacturer` ->
    # `device_type__manufacturer`), taking ids or natural keys like a foreign key's filter; a path
    # ending at a field of one (`interfaces__mac_address`) takes that field's lookups, one ending at
    # a foreign key's column (`virtual_machine__cluster_id`) or at the related objects' primary key
    # (`groups__id`) ids only, the latter with `__isnull` when it crosses a reverse relation.
    relations: dict[str, str] = field(default_factory=dict)
    # Filters every model pointing here by a foreign key named as this model (`tenant`) takes
    # through it: name -> ORM path from here. A tenant's {"tenant_group": "tenant_group"} gives a
    # device `tenant_group` (`tenant__tenant_group`, by id or name); a path ending in `_id`
    # (`cluster_group_id`) takes ids only. A model's own `relations` win.
    relayed: dict[str, str] = field(default_factory=dict)
    # Filters by a related object that name only some of its objects: filter -> their lookups
    # (a tunnel endpoint's `tunnel_interface` takes tunnel interfaces: {"type": "tunnel"}).
    filter_choices: dict[str, dict] = field(default_factory=dict)
    # Filters whose bare name matches with another lookup than `exact` (their `__<lookup>` ones
    # keep theirs): {"serial": "iexact"} finds "GQ-SN-1" by "gq-sn-1", as the reference's does.
    default_lookups: dict[str, str] = field(default_factory=dict)
    # Foreign keys (or ORM paths) that take a `has_<name>` filter beside the generated ones of
    # every relation to many objects: a port's `has_cable`.
    has: tuple[str, ...] = ()
    # Fields whose filters take `__isnull` though they are never empty here: the reference's
    # models let them be (a contact association's `associated_object_type`) or its filters name
    # it (a module's `serial`).
    isnull: tuple[str, ...] = ()
    # Content type fields also filtered by the type's integer id, `<name>_id` (`__n`, and
    # `__isnull` where the field takes it): a change record's `changed_object_type_id`.
    type_ids: tuple[str, ...] = ()
    # The reference's plain `created` and `last_updated` filters on objects that show no
    # timestamps: matched on the kept columns where the model has them (hidden), refused (400,
    # saying why) where it keeps none, as the reference's filters name them but cannot apply them.
    timestamp_filters: bool = False
    # JSON fields filtered by their text containing a value (any case, values ORed), as the
    # reference's: `extra_config=vlan` finds {"vlan": 10}.
    json_filters: tuple[str, ...] = ()
    # Objects usable only on the models their `content_types` name (statuses, roles, tags).
    scoped_by_content_types: bool = False
    # Fields whose statuses, roles or tags are not limited to this model (a config context's
    # roles and tags select devices, so they are device roles and tags).
    unscoped: tuple[str, ...] = ()
    # One-to-one fields of other models pointing here, shown (read-only) as this object's own
    # reference: a device's `parent_bay` is the bay whose `installed_device` it is.
    reverse_one: tuple[str, ...] = ()
    # Foreign keys whose object, nested at depth > 0, shows as a generic relation's does (with
    # `generic_foreign_key`): a cable end's `cable`, as the reference shows it.
    nested_as_generic: tuple[str, ...] = ()
    graphql_list: str | None = None  # the list's GraphQL name where the route's would clash
    notes: bool | None = None  # whether objects take notes (`notes_url`); default: those with custom fields
    # Whether contacts are associated with objects and static groups hold them (GraphQL's
    # `associated_contacts`, `static_group_association_set`), as the reference's models mixing
    # them in; None: as the application keeping them decides (those with custom fields, or whose
    # model says it takes contacts or groups).
    contacts: bool | None = None
    static_groups: bool | None = None
    # Taking no notes, but showing `notes_url` as null, as the reference's component templates do.
    notes_url_null: bool = False
    # False: taking notes (its `notes/` path) without showing `notes_url`, as the reference's
    # association serializers (an address's interface assignment).
    notes_url: bool = True
    # The reference's documents also give each path of an object by its natural key
    # (`extras/jobs/{name}/run/`); every path here takes either anyway (the id or the key).
    paths_by_natural_key: bool = False
    # Values read a page at a time like `include=` ones, but always shown, nested ones included
    # (at depth 0 there): a cable's `terminations` by connector.
    loaded: dict[str, Included] = field(default_factory=dict)
    writable: bool = True  # False: read-only (GET, HEAD, OPTIONS; no mutations), e.g. content types
    change_logged: bool = True  # False: writes leave no change record (tokens: their data is a secret)
    # False: objects come from elsewhere (jobs from code) and are changed or deleted, never created.
    creatable: bool = True
    # Foreign keys naming the object a change record relates to, the first one set: an
    # interface's change names its module or device, as the reference's change log does.
    changes_relate_to: tuple[str, ...] = ()
    legacy: Legacy = field(default_factory=Legacy)  # the API 1.x form
    # API versions the routes answer: (first, last); None: every version. Sites and regions are
    # 1.x views of locations: ("1.2", "1.4").
    versions: tuple[str, str] | None = None
    # False: a tree whose objects do not show their `tree_depth` (controller managed device
    # groups, as the reference's serializer leaves it out); GraphQL still answers it.
    shows_tree_depth: bool = True
    # False: read through GraphQL alone (cable paths, traced by the service): no REST route, no
    # OpenAPI paths, no pages; objects show no `url`.
    routed: bool = True
    # Model fields GraphQL alone shows, under the reference's names: name -> model field (a path
    # endpoint's `path`, its `_path`). Foreign keys show their object, others their value. A
    # Derived shows the object it finds, for a page at once (a device's one `cluster`).
    graphql_names: dict[str, str | Derived] = field(default_factory=dict)
    # Generic relations GraphQL types as a union of their targets' types, under the reference's
    # name, rather than as the InventoryObject interface: name -> union name (a cable end's
    # `cable_peer`: CableTerminationTypes). Their fields are read in fragments, the shared ones
    # in `... on InventoryObject { }`. One union name always names the same targets.
    unions: dict[str, str] = field(default_factory=dict)

    @property
    def integer_pk(self) -> bool:
        """Objects keyed by an integer (Django's own models, such as content types), not a UUID."""
        return isinstance(self.model._meta.pk, models.IntegerField)

    @property
    def default_ordering(self) -> tuple[str, ...]:
        return self.ordering or tuple(self.model._meta.ordering)

    @property
    def pk_type(self) -> str:
        """The GraphQL type of the primary key."""
        return "Int" if self.integer_pk else "UUID"

    def parse_pk(self, text: str):
        """The primary key a path or filter names (ValueError when it cannot be one)."""
        return int(text) if self.integer_pk else uuid.UUID(text)

    def id_value(self, pk):
        """An id as the schema's arguments take it: an integer, or a UUID's text."""
        return int(pk) if self.integer_pk else str(pk)

    @property
    def app_label(self) -> str:
        return self.model._meta.app_label

    @property
    def model_name(self) -> str:
        return self.model._meta.model_name

    @property
    def object_type(self) -> str:
        return f"{self.app_label}.{self.model_name}"

    @property
    def endpoint(self) -> str:
        return self.route.split("/", 1)[1]

    @property
    def list_field(self) -> str:
        """The root list's name: the route's."""
        return self.graphql_list or self.endpoint.replace("-", "_")

    @property
    def single_field(self) -> str:
        """The root field reading one object: the model's name in words, but `<name>_by_id`
        where the route is not plural (virtual-chassis): the list has the name, as the
        reference's."""
        name = words(self.model)
        return f"{name}_by_id" if name == self.list_field else name

    @property
    def reference_fields(self) -> dict[str, str]:
        """{name: single_field or list_field}: the root fields' names as the reference's schema
        derives them (the model's verbose names in words: `min_max_validation_rules`,
        `job_log_entries`, `vpn_phase_1_policy`), where they differ from this schema's own."""
        meta = self.model._meta
        names = {  # one name for both (virtual chassis): the reference's is the list
            words_of(meta.verbose_name): self.single_field,
            words_of(meta.verbose_name_plural): self.list_field,
        }
        return {name: own for name, own in names.items() if name != own}

    @property
    def type_name(self) -> str:
        return f"{self.model.__name__}Type"

    @property
    def verbose_name(self) -> str:
        return self.model._meta.object_name

    @cached_property
    def is_tree(self) -> bool:
        """Objects in a named tree (their display a path of names) through a `parent` pointing
        at their own model, with a tree's reading of ancestors; a prefix's parent makes no such
        tree, nor does a cloud network's single level of children."""
        try:
            parent = self.model._meta.get_field("parent")
            self.model._meta.get_field("name")
        except Exception:
            return False
        return parent.many_to_one and parent.related_model is self.model and hasattr(self.model, "ancestors")

    @cached_property
    def fields(self) -> list[FieldSpec]:
        """Every exposed model field, in declaration order, with its kind."""
        specs = [FieldSpec(name, COMPUTED, computed=c) for name, c in self.computed.items()]
        legacy_only = set(self.legacy.only)
        for f in self.model._meta.get_fields():
            if f.auto_created and not f.concrete or f.name in self.hidden or f.name.startswith("_"):
                continue
            if f.name in {"id", "created", "last_updated"}:
                continue
            if f.many_to_many:
                kind = CONTENT_TYPES if f.related_model is ContentType else MANY_TO_MANY
                specs.append(FieldSpec(f.name, kind, f, f.related_model))
            elif f.many_to_one or f.one_to_one:
                kind = CONTENT_TYPE if f.related_model is ContentType else FOREIGN_KEY
                specs.append(FieldSpec(f.name, kind, f, f.related_model))
            elif isinstance(f, models.FileField):
                specs.append(FieldSpec(f.name, FILE, f))
            elif f.concrete:
                specs.append(FieldSpec(f.name, SCALAR, f, legacy=f.name in legacy_only))
        for name in self.reverse_one:
            relation = self.model._meta.get_field(name)
            specs.append(
                FieldSpec(name, FOREIGN_KEY, relation, relation.related_model, columns=(f"{name}__pk",))
            )
        for name, (type_field, id_field, *targets) in self.generic.items():
            specs.append(FieldSpec(name, GENERIC, columns=(type_field, id_field), targets=tuple(*targets)))
        for name, source in self.reverse.items():
            model_name, fk = source.split(".")
            target = apps.get_model(self.app_label, model_name)
            specs.append(FieldSpec(name, REVERSE, target._meta.get_field(fk), target, columns=(fk,)))
        for name, included in INCLUDES.items():
            if included.applies(self):
                specs.append(FieldSpec(name, INCLUDED, included=included))
        for name, included in self.loaded.items():
            specs.append(FieldSpec(name, INCLUDED, included=included))
        for name, value in self.legacy.fields.items():
            if isinstance(value, Included):
                specs.append(FieldSpec(name, INCLUDED, included=value, legacy=True))
            elif isinstance(value, Derived):
                specs.append(
                    FieldSpec(name, DERIVED, target=value.model, columns=(value.source,), derived=value)
                )
            else:
                specs.append(FieldSpec(name, COMPUTED, computed=value, legacy=True))
        if self.legacy.created_is_date and "created" in self.timestamps:
            specs.append(
                FieldSpec(CREATED_DATE, COMPUTED, computed=Computed(("created",), date_text), legacy=True)
            )
        return [replace(spec, displaced=True) if spec.name in self.lists else spec for spec in specs]

    @cached_property
    def current_fields(self) -> list[FieldSpec]:
        """The fields API 2.x and 3.x show and take (those of 1.x only left out)."""
        return [spec for spec in self.fields if not spec.legacy and spec.kind != DERIVED]

    def served_at(self, version: str) -> bool:
        if not self.routed:
            return False
        if self.versions is None:
            return True
        first, last = self.versions
        return version_key(first) <= version_key(version) <= version_key(last)

    @property
    def included(self) -> dict[str, Included]:
        """The `include=` values (and `loaded` ones) of today's API."""
        return {spec.name: spec.included for spec in self.current_fields if spec.kind == INCLUDED}

    @cached_property
    def included_names(self) -> frozenset[str]:
        """Every value read a page at a time (those of API 1.x too)."""
        return frozenset(spec.name for spec in self.fields if spec.kind == INCLUDED)

    @property
    def written_included(self) -> dict[str, Included]:
        """Values written after the object is saved: `include=` ones and those of API 1.x (an IP
        address's assigned object)."""
        return {
            spec.name: spec.included for spec in self.fields if spec.kind == INCLUDED and spec.included.write
        }

    @cached_property
    def timestamps(self) -> list[str]:
        return [n for n in ("created", "last_updated") if _has_field(self.model, n) and n not in self.hidden]

    @cached_property
    def file_fields(self) -> tuple[str, ...]:
        """The fields holding stored files: writes carrying them are multipart/form-data."""
        return tuple(spec.name for spec in self.current_fields if spec.kind == FILE)

    @property
    def has_custom_fields(self) -> bool:
        return _has_field(self.model, "_custom_field_data")

    @property
    def has_notes(self) -> bool:
        if self.notes_url_null:
            return False
        return self.has_custom_fields if self.notes is None else self.notes

    @property
    def shows_notes_url(self) -> bool:
        return self.has_notes and self.notes_url or self.notes_url_null

    @property
    def derived(self) -> list[str]:
        """Read-only values computed in SQL, shown at the top level only (spec §4.6)."""
        return (["tree_depth"] if self.is_tree and self.shows_tree_depth else []) + list(self.counts)

    def count_source(self, name: str) -> tuple[type[models.Model], str] | None:
        app_label, model_name, fk = self.counts[name].split(".")
        try:
            return apps.get_model(app_label, model_name), fk
        except LookupError:
            return None


def words(model: type[models.Model]) -> str:
    """A model's name in words joined by underscores: LocationType -> location_type, IPAddress ->
    ip_address, VLANGroup -> vlan_group, VMInterface -> vm_interface."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", model.__name__).lower()


def words_of(text) -> str:
    """A text in lower-case words joined by underscores: "VPN Phase 1 Policy" -> vpn_phase_1_policy."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


CREATED_DATE = "created_date"  # the date of `created`, as API 1.x showed it


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _has_field(model, name: str) -> bool:
    try:
        model._meta.get_field(name)
    except Exception:
        return False
    return True


@dataclass(frozen=True)
class CustomFieldSupport:
    """How custom field data is defined, cleaned and filtered, given by the application that
    defines custom fields (the engine knows none of its models).

    `definitions(model)` is what `clean(definitions, current, given)` checks data
    against (raising ValidationError with the messages); `q(model, {parameter: values})` turns
    `cf_<key>[__<lookup>]` filters into a Q (raising FilterError); `described()` is what the
    schema shows of them (queryengine.customschema): {object type: ((key, value kind, filter
    parameters), ...)}."""

    definitions: Callable
    clean: Callable
    q: Callable
    described: Callable


CUSTOM_FIELDS: list[CustomFieldSupport] = []


def support_custom_fields(support: CustomFieldSupport) -> None:
    CUSTOM_FIELDS[:] = [support]


def custom_field_support() -> CustomFieldSupport | None:
    return CUSTOM_FIELDS[0] if CUSTOM_FIELDS else None


# Rules over written objects beyond their models' own (data validation rules), given by the
# application that keeps them: `check(model, instances, errors)` adds to each object's errors
# (a dict beside it; None stands for an item that is no object) what its rules refuse. Every
# write's validation calls it once per batch of cleaned objects (queryengine.batches.check_rules).
OBJECT_RULES: list[Callable] = []


def support_object_rules(check: Callable) -> None:
    OBJECT_RULES[:] = [check]


def object_rules() -> list[Callable]:
    return OBJECT_RULES


INCLUDES: dict[str, Included] = {}


def support_include(name: str, included: Included) -> None:
    """Declare an `include=<name>` value (before resources' fields are first read)."""
    INCLUDES[name] = included


# Called with {model: [primary keys]} of every object a write deleted, cascades included, so
# objects that refer to them without a foreign key (generic relations) can follow.
DELETION_HOOKS: list[Callable] = []


def on_delete(hook: Callable) -> None:
    if hook not in DELETION_HOOKS:
        DELETION_HOOKS.append(hook)


def deletion_hooks() -> list[Callable]:
    return DELETION_HOOKS


# Filters a resource takes beyond its own declaration, given by the application they belong to
# (a dynamic group's members on every model groups apply to): callables (resource) -> {name:
# CustomFilter}. Registered before filters are first built (applications' `ready`).
FILTER_EXTENSIONS: list[Callable] = []


def extend_filters(hook: Callable) -> None:
    if hook not in FILTER_EXTENSIONS:
        FILTER_EXTENSIONS.append(hook)


REGISTRY: dict[type[models.Model], Resource] = {}
# Hand-written GraphQL fields beside the generated ones: callables (types by name) -> {name: Field}.
QUERY_EXTENSIONS: list[Callable] = []
MUTATION_EXTENSIONS: list[Callable] = []
# Fields of object types beside the generated ones: callables (resource, types by name) ->
# {name: Field or ExtensionList} (an object's dynamic groups, on every model groups may hold).
TYPE_EXTENSIONS: list[Callable] = []


@dataclass(frozen=True)
class ExtensionList:
    """A list of objects a type extension adds, declared so compiled plans read it too:
    `field(types by name)` is its GraphQL field, `target` the members' model
    ("<app_label>.<Model>"), and `members(model, owner ids, viewer)` -> {owner id: [member ids,
    in the list's order]} finds them for a whole page at once, among the members `viewer` (a
    query.Viewer, or None: everyone) may view. A plain field is read by the generic executor."""

    field: Callable
    target: str
    members: Callable


def extend_graphql(
    query: Callable | None = None, mutation: Callable | None = None, types: Callable | None = None
) -> None:
    if query:
        QUERY_EXTENSIONS.append(query)
    if mutation:
        MUTATION_EXTENSIONS.append(mutation)
    if types:
        TYPE_EXTENSIONS.append(types)


BY_OBJECT_TYPE: dict[str, Resource] = {}
BY_TYPE_NAME: dict[str, Resource] = {}


def register(resource: Resource) -> Resource:
    REGISTRY[resource.model] = resource
    BY_OBJECT_TYPE[resource.object_type] = resource
    BY_TYPE_NAME[resource.type_name] = resource
    return resource


def resource_for(model: type[models.Model]) -> Resource | None:
    return REGISTRY.get(model)


def resource_by_object_type(object_type: str) -> Resource | None:
    return BY_OBJECT_TYPE.get(object_type)


def resource_by_type_name(type_name: str) -> Resource | None:
    return BY_TYPE_NAME.get(type_name)


def resources() -> list[Resource]:
    autodiscover()
    return sorted(REGISTRY.values(), key=lambda r: r.route)


_discovered = False


def autodiscover() -> None:
    """Import `resources` of every inventory application so their declarations register."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for config in apps.get_app_configs():
        if config.name.startswith("inventory."):
            try:
                importlib.import_module(f"{config.name}.resources")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.resources":
                    raise
