"""User-written templates see data, never the ORM, with the rendering user's permissions and
within bounds: each attack that once worked, through every kind of template."""

from __future__ import annotations

import time

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test.utils import override_settings

from inventory.dcim.models import Device
from inventory.extras import webhooks
from inventory.extras.models import ComputedField, CustomLink, ExportTemplate, Webhook
from inventory.extras.templatedata import Scope
from inventory.extras.templating import TemplateFailed, TemplateLimit, render
from inventory.users.models import Token, User
from queryengine.registry import resource_for

from .builders import SUPERUSER_KEY
from .conftest import send
from .test_permissions import account, grant

TOKEN_THEFT = (
    "{% set CT = queryset.first().status.content_types.model %}"
    "{% for t in CT.objects.get(app_label='users',model='token').model_class().objects.all() %}"
    "{{ t.user.username }}={{ t.key }};{% endfor %}"
)
ORM_CHAINS = [
    TOKEN_THEFT,
    "{% for d in queryset.model.objects.all() %}{{ d.name }};{% endfor %}",
    "{{ queryset.raw('update users_user set is_superuser = true returning id') }}",
    "{{ queryset.first().status.content_types.model }}{{ queryset.extra(where=['1=1']) }}",
    "{% for d in queryset %}{{ d._meta }}{{ d.location.devices.model }}{{ d.save() }}{% endfor %}",
    "{{ queryset.first().__class__.objects.all() }}{{ queryset.first().tenant._state }}",
    "{{ queryset.first().interfaces.update(name='x') }}{{ queryset.query }}",
]
BOMBS = [
    "{% set n = 100000 %}{% for i in range(n) %}{% for j in range(n) %}{% endfor %}{% endfor %}",
    "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}",
    '{{ "x" * 100000000 }}',
    '{% set s = "x" * 30000000 %}{{ [s] * 1000 }}',
    '{% set ns = namespace(s="xx") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}',
    '{% set l = [] %}{% set s = "y" * 20000000 %}{% for i in range(50) %}{{ l.append(s) }}{% endfor %}'
    "{{ l|join }}",
    '{{ "%0999999999d"|format(1) }}{{ "x"|center(999999999) }}',
    "{{ 10 ** (10 ** 8) }}",
]


@pytest.fixture
def author(sample):
    """A user who may write export templates and computed fields, view locations and one device
    (leaf1), and nothing of tenants, users or tokens."""
    user, api = account(
        "extras.add_exporttemplate", "extras.add_computedfield", "extras.view_status", "dcim.view_location"
    )
    grant(user, ["dcim.device"], ["view"], {"name": "leaf1"})
    return user, api


def export(api, path: str, name: str, code: str, content_type: str):
    status, body = send(
        api,
        "post",
        "/api/extras/export-templates/",
        {"content_type": content_type, "name": name, "template_code": code},
    )
    assert status == 201, body
    return api.get(path, {"export": name})


@pytest.mark.parametrize("code", ORM_CHAINS)
def test_export_templates_reach_no_orm(author, code):
    user, api = author
    response = export(api, "/api/dcim/devices/", "attack", code, "dcim.device")
    assert response.status_code == 400, response.content
    assert "Template rendering failed" in response.json()["detail"]
    assert SUPERUSER_KEY.encode() not in response.content
    user.refresh_from_db()
    assert not user.is_superuser
    assert Device.objects.exclude(name="x").count() == Device.objects.count()


def test_exports_show_only_what_the_user_may_view(author):
    user, api = author
    code = (
        "{% for d in queryset %}{{ d.name }}|{{ d.tenant }}|{{ d.location.name }}|"
        "{{ d.location.devices.all()|map(attribute='name')|join(',') }}|"
        "{{ queryset.filter(name='core1').count() }}|{{ queryset.count() }}\n{% endfor %}"
    )
    response = export(api, "/api/dcim/devices/", "mine", code, "dcim.device")
    assert response.status_code == 200, response.content
    leaf = Device.objects.get(name="leaf1")
    # The tenant is hidden (no permission on tenants): None, as GraphQL shows it. Other devices
    # at the location are hidden too, and filters cannot widen the list.
    assert response.content.decode() == f"leaf1|None|{leaf.location.name}|leaf1|0|1\n"
    # Everything the superuser may view, through the same template.
    everything = send_export(SUPERUSER_KEY, "mine")
    assert f"leaf1|{leaf.tenant.name}|" in everything and "core1|" in everything


def send_export(key, name) -> str:
    from .conftest import Api

    response = Api(key).get("/api/dcim/devices/", {"export": name})
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_templates_never_show_secrets(api, sample):
    code = "{% for u in queryset %}{{ u.username }}:{{ u.password }}:{% for t in u.tokens.all() %}{{ t.key }}{{ t.display }}{% endfor %};{% endfor %}"
    response = export(api, "/api/users/users/", "users", code, "users.user")
    assert response.status_code == 200, response.content
    text = response.content.decode()
    admin = User.objects.get(username="admin")
    assert f"admin::{SUPERUSER_KEY[-6:]} (admin)" in text  # the key's display, as the API shows it
    assert admin.password not in text and SUPERUSER_KEY not in text and "pbkdf2" not in text


@pytest.mark.parametrize("code", BOMBS)
@override_settings(TEMPLATE_MAX_ITERATIONS=20000, TEMPLATE_MAX_OUTPUT=10_000_000)
def test_rendering_is_bounded(api, sample, code):
    started = time.monotonic()
    response = export(api, "/api/dcim/devices/", "bomb", code, "dcim.device")
    assert response.status_code == 400, response.content[:200]
    assert time.monotonic() - started < 10
    assert response.json()["detail"].startswith(("Template rendering failed", "The ")), response.json()


def test_the_default_bounds_stop_a_cpu_bomb_quickly(api, sample):
    started = time.monotonic()
    response = export(api, "/api/dcim/devices/", "bomb", BOMBS[0], "dcim.device")
    assert response.status_code == 400
    assert "TEMPLATE_MAX_ITERATIONS" in response.json()["detail"]
    assert time.monotonic() - started < 10
    with override_settings(TEMPLATE_TIME_LIMIT=0.2, TEMPLATE_MAX_ITERATIONS=10**12):
        started = time.monotonic()
        body = api.json("/api/dcim/devices/", {"export": "bomb"}, status=400)
        assert "TEMPLATE_TIME_LIMIT" in body["detail"] and time.monotonic() - started < 5


def test_bounds_known_when_written_are_refused_then(api, sample):
    nested = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    for path, body in (
        (
            "/api/extras/export-templates/",
            {"content_type": "dcim.device", "name": "n", "template_code": nested},
        ),
        ("/api/extras/computed-fields/", {"content_type": "dcim.device", "label": "N", "template": nested}),
        (
            "/api/extras/custom-links/",
            {
                "content_type": "dcim.device",
                "name": "n",
                "text": nested[:480],
                "target_url": "x",
                "new_window": False,
            },
        ),
    ):
        status, errors = send(api, "post", path, body)
        assert status == 400, (path, errors)
        assert "TEMPLATE_MAX_ITERATIONS" in str(errors)
    with override_settings(TEMPLATE_MAX_LENGTH=100):
        status, errors = send(
            api,
            "post",
            "/api/extras/export-templates/",
            {"content_type": "dcim.device", "name": "long", "template_code": "x" * 101},
        )
        assert status == 400 and "TEMPLATE_MAX_LENGTH" in errors["template_code"][0]


def computed(template: str, fallback: str = "fallback") -> ComputedField:
    return ComputedField.objects.create(
        content_type=ContentType.objects.get_for_model(Device),
        key="probe",
        label="Probe",
        template=template,
        fallback_value=fallback,
    )


def test_computed_fields_render_for_their_reader(author):
    user, api = author
    leaf = Device.objects.get(name="leaf1")
    computed(
        "{{ obj.name }}/{{ obj.tenant.name }}/{{ obj.location.devices.all()|length }}/"
        "{{ obj.status.content_types.model }}"
        "{% for t in obj.status.content_types.model.objects.get(app_label='users', model='token')"
        ".model_class().objects.all() %}{{ t.key }}{% endfor %}"
    )
    path = f"/api/dcim/devices/{leaf.pk}/"
    # The ORM chain fails for every reader: the fallback value, never a key.
    for reader in (api, None):
        reader = reader or _superuser_api()
        body = reader.json(path, {"include": "computed_fields"})
        assert body["computed_fields"]["probe"] == "fallback"
        assert SUPERUSER_KEY not in str(body)
    ComputedField.objects.filter(key="probe").update(
        template="{{ obj.name }}/{{ obj.tenant.name }}/{{ obj.location.devices.all()|length }}"
    )
    from queryengine import definitions

    definitions.forget()
    everyone = Device.objects.filter(location=leaf.location).count()
    shown = _superuser_api().json(path, {"include": "computed_fields"})["computed_fields"]
    assert shown["probe"] == f"leaf1/{leaf.tenant.name}/{everyone}" and everyone > 1
    # The constrained reader sees neither the tenant nor the other devices.
    assert api.json(path, {"include": "computed_fields"})["computed_fields"]["probe"] == "leaf1//1"


@pytest.mark.parametrize("code", ORM_CHAINS)
def test_computed_fields_reach_no_orm(author, code):
    user, api = author
    leaf = Device.objects.get(name="leaf1")
    computed(code.replace("queryset.first()", "obj").replace("queryset", "obj"))
    for reader in (api, _superuser_api()):
        body = reader.json(f"/api/dcim/devices/{leaf.pk}/", {"include": "computed_fields"})
        assert body["computed_fields"]["probe"] == "fallback"
    user.refresh_from_db()
    assert not user.is_superuser and Device.objects.filter(name="leaf1").exists()


def _superuser_api():
    from .conftest import Api

    return Api(SUPERUSER_KEY)


@override_settings(TEMPLATE_MAX_ITERATIONS=20000)
def test_a_computed_field_past_its_bounds_is_a_400(api, sample):
    computed(BOMBS[1])
    body = api.json("/api/dcim/devices/", {"include": "computed_fields"}, status=400)
    assert "probe" in str(body) and "TEMPLATE_MAX_ITERATIONS" in str(body)


def test_other_templates_render_the_same_way(sample):
    """Custom links and job buttons render over the same views of an object (as a page shows
    them); webhook bodies and headers over the change's data."""
    leaf = Device.objects.get(name="leaf1")
    user, _ = account()
    grant(user, ["dcim.device"], ["view"], {"name": "leaf1"})
    obj = Scope(user).views(resource_for(Device), [leaf])[0]
    link = CustomLink(content_type_id=1, name="l", text="{{ obj.name }} in {{ obj.tenant }}", target_url="x")
    assert render(link.text, {"obj": obj}) == "leaf1 in None"
    for code in ORM_CHAINS:
        with pytest.raises(TemplateFailed):
            render(code.replace("queryset.first()", "obj").replace("queryset", "obj"), {"obj": obj})
    hook = Webhook(name="h", payload_url="https://example.com/", body_template=BOMBS[2])
    with pytest.raises(TemplateLimit):
        webhooks.request_for(hook, {"data": {"name": "leaf1"}})
    for attack in (
        "{{ data.__class__.__mro__ }}",
        "{{ data.items.__self__.clear() }}",
        "{{ data.pop('x') }}",
    ):
        hook.body_template = attack
        with pytest.raises(TemplateFailed):
            webhooks.request_for(hook, {"data": {"name": "leaf1"}})
    hook.body_template = "{{ data.name }}{{ data.items.__self__ }}{{ data.nosuch }}"
    hook.additional_headers = "X-Name: {{ data['name']|upper }}"
    request = webhooks.request_for(hook, {"data": {"name": "leaf1"}})
    assert request.data == b"leaf1" and request.headers["X-name"] == "LEAF1"


def test_templates_keep_the_language(api, sample):
    """What export templates are written with keeps working: loops, filters, macros,
    namespaces, lists of related objects, sorting and grouping by attributes."""
    code = (
        "{% macro row(d) %}{{ d.name or d.pk }}@{{ d.location.name }}{% endmacro %}"
        "{% set ns = namespace(n=0) %}"
        "{% for loc, ds in queryset|selectattr('name')|groupby('location.name') %}"
        "{{ loc }}:{% for d in ds|sort(attribute='name') %}{{ row(d) }}"
        "{% set ns.n = ns.n + 1 %}{{ ',' if not loop.last }}{% endfor %};{% endfor %}"
        "{{ ns.n }}|{{ queryset.filter(status='Active').exclude(name='leaf1')|list|length }}"
        "|{{ queryset.filter(name__ic='e').order_by('-name').first().name }}|{{ (queryset|first).display|upper }}"
        "|{{ '%s-%03d'|format('x', 7) }}"
        "|{{ queryset.filter(name='leaf1')[0].interfaces.all()|map(attribute='name')|sort|first }}"
    )
    response = export(api, "/api/dcim/devices/", "language", code, "dcim.device")
    assert response.status_code == 200, response.content
    text = response.content.decode()
    named = Device.objects.exclude(name=None)
    location = named.first().location.name
    assert text.startswith(f"{location}:core1@{location},leaf1@{location};")
    others = api.json("/api/dcim/devices/", {"status": "Active", "name__n": "leaf1"})["count"]
    first = api.json("/api/dcim/devices/", {"limit": 1})["results"][0]["display"]
    interface = min((i.name for i in Device.objects.get(name="leaf1").interfaces.all()), key=str.lower)
    assert text.endswith(f"|{others}|leaf1|{first.upper()}|x-007|{interface}")
    assert Token.objects.filter(user__username="admin").exists()
    assert ExportTemplate.objects.filter(name="language").exists()
