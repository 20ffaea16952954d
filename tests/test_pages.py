"""The object pages (web/objects.py, web/forms.py) through the Django test client with a signed-in
session: every registered model's list and detail page, the global search, permissions, and
edits whose validation messages are the API's own."""

from html import escape

import orjson
import pytest
from django.test import Client

from queryengine.permissions import restricted
from web.shown import served

RESOURCES = list(served().values())
pytestmark = pytest.mark.usefixtures("shared_sample")


@pytest.fixture
def browser(sample, superuser):
    client = Client()
    client.force_login(superuser)
    return client


def page(client, path: str, status: int = 200, **params) -> str:
    response = client.get(path, params)
    assert response.status_code == status, (path, response.status_code, response.content[:800])
    return response.content.decode()


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.route)
def test_every_model_has_a_list_and_a_detail_page(browser, resource, superuser):
    objects = list(restricted(resource, superuser).order_by("pk")[:3])
    assert objects, "the sample has objects of every model"
    listed = page(browser, f"/{resource.route}/", limit=1000)
    for obj in objects:
        assert f'href="/{resource.route}/{obj.pk}/"' in listed
    detail = page(browser, f"/{resource.route}/{objects[0].pk}/")
    assert f"/api/{resource.route}/{objects[0].pk}/" in detail
    assert escape(resource.model._meta.verbose_name.capitalize()[:1]) in detail


def signed_in(*model_permissions: str) -> Client:
    from django.contrib.auth.models import Permission

    from inventory.users.models import User

    user = User.objects.create_user(f"viewer{len(model_permissions)}", password="x")
    for name in model_permissions:
        app_label, codename = name.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    client = Client()
    client.force_login(user)
    return client


def test_list_filters_search_paging_and_export(browser):
    from inventory.dcim.models import Device

    devices = list(Device.objects.exclude(name=None).order_by("name"))  # unnamed ones sort first on SQLite
    location = devices[0].location
    at_location = [d for d in devices if d.location_id == location.pk]
    listed = page(browser, "/dcim/devices/", location=str(location.pk))
    assert f"1–{len(at_location)} of {len(at_location)}" in listed
    assert all(f"/dcim/devices/{d.pk}/" in listed for d in at_location)
    assert all(f"/dcim/devices/{d.pk}/" not in listed for d in devices if d.location_id != location.pk)
    # Columns show related objects by their labels, linked to their pages.
    assert f'<a href="/dcim/locations/{location.pk}/">' in listed  # labelled by its path of names
    assert f"{escape(location.name)}</a>" in listed
    assert "<th>Device type</th>" in listed or ">Device type</a></th>" in listed
    # The export link asks the API for the same rows as CSV, with the session.
    csv_link = f"/api/dcim/devices/?location={location.pk}&amp;format=csv"
    assert csv_link in listed
    exported = browser.get(csv_link.replace("&amp;", "&"))
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    assert exported.content.decode().count("\n") >= len(at_location) + 1
    # Search with q, paging with limit/offset.
    named = page(browser, "/dcim/devices/", q=devices[0].name)
    assert f"/dcim/devices/{devices[0].pk}/" in named
    # Pages in the API's order (where unnamed devices sort depends on the database).
    ordered = orjson.loads(
        browser.get("/api/dcim/devices/", {"sort": "name", "limit": 2, "format": "json"}).content
    )
    first = page(browser, "/dcim/devices/", limit=1, sort="name")
    assert f"1–1 of {ordered['count']}" in first and f"/dcim/devices/{ordered['results'][0]['id']}/" in first
    second = page(browser, "/dcim/devices/", limit=1, offset=1, sort="name")
    assert f"/dcim/devices/{ordered['results'][1]['id']}/" in second and 'rel="prev"' in second


def test_bad_filters_are_refused_with_the_api_message(browser):
    refused = page(browser, "/dcim/devices/", 400, colour="red")
    assert "colour: Unknown filter field" in refused
    bad = page(browser, "/dcim/devices/", 400, position="high")
    assert "position:" in bad


def test_detail_shows_related_objects_changes_and_reverse_relations(browser):
    from inventory.dcim.models import Device, Interface

    device = Interface.objects.exclude(device=None).first().device
    detail = page(browser, f"/dcim/devices/{device.pk}/")
    assert f'<a href="/dcim/locations/{device.location_id}/">' in detail
    assert f"{escape(device.location.name)}</a>" in detail
    interfaces = Interface.objects.filter(device=device).count()
    assert (
        f'<a href="/dcim/interfaces/?device_id={device.pk}">Interfaces</a> <span class="count">{interfaces}</span>'
        in detail
    )
    assert 'id="changelog"' in detail and 'id="config-context"' in detail and 'id="notes"' in detail
    listed = page(browser, "/dcim/interfaces/", device_id=str(device.pk))
    assert f"1–{interfaces} of {interfaces}" in listed
    assert Device.objects.count()


def test_global_search(browser):
    from inventory.dcim.models import Device

    device = Device.objects.exclude(name=None).order_by("name").first()
    found = page(browser, "/search/", q=device.name)
    assert f'href="/dcim/devices/{device.pk}/"' in found
    assert f'href="/dcim/devices/?q={device.name}"' in found
    assert "Nothing matches" in page(browser, "/search/", q="no-such-thing-anywhere")


def test_without_view_permission_no_data(sample):
    from inventory.dcim.models import Device

    device = Device.objects.exclude(name=None).order_by("name").first()
    client = signed_in("dcim.view_location")
    response = client.get("/dcim/devices/")
    assert response.status_code == 403 and device.name not in response.content.decode()
    response = client.get(f"/dcim/devices/{device.pk}/")
    assert response.status_code == 403 and device.name not in response.content.decode()
    assert f"/dcim/devices/{device.pk}/" not in client.get("/search/", {"q": device.name}).content.decode()
    assert client.get("/dcim/locations/").status_code == 200
    assert Client().get("/dcim/devices/").status_code == 302  # signed out: to the sign-in page


def test_without_change_permission_no_edit_form(sample):
    from inventory.dcim.models import Device

    device = Device.objects.exclude(name=None).order_by("name").first()
    client = signed_in("dcim.view_device")
    detail = client.get(f"/dcim/devices/{device.pk}/").content.decode()
    assert device.name in detail and f"/dcim/devices/{device.pk}/edit/" not in detail
    for path in (
        f"/dcim/devices/{device.pk}/edit/",
        "/dcim/devices/add/",
        f"/dcim/devices/{device.pk}/delete/",
    ):
        response = client.get(path)
        assert response.status_code == 403 and 'id="object-form"' not in response.content.decode()
    response = client.post(f"/dcim/devices/{device.pk}/edit/", {"name": "taken-over"})
    assert response.status_code == 403
    device.refresh_from_db()
    assert device.name != "taken-over"


def test_edit_shows_the_api_validation_message_and_saves(browser):
    from inventory.dcim.models import Device

    device, other = Device.objects.exclude(location=None).exclude(name=None).order_by("name")[:2]
    form = page(browser, f"/dcim/devices/{device.pk}/edit/")
    assert 'id="object-form"' in form and f'value="{escape(device.name)}"' in form
    # What the API says of a bad value, on the field it concerns; nothing is written.
    response = browser.post(f"/dcim/devices/{device.pk}/edit/", {**current(form), "position": "-3"})
    body = response.content.decode()
    assert response.status_code == 400, body[:500]
    from django.test import Client as ApiClient

    api = ApiClient()
    api.force_login(Device.objects.model._meta.apps.get_model("users", "User").objects.get(username="admin"))
    answer = api.patch(f"/api/dcim/devices/{device.pk}/", '{"position": -3}', content_type="application/json")
    assert answer.status_code == 400
    for message in answer.json()["position"]:
        assert escape(message) in body
    # A good value is saved and the object's page shows it, with the change in its log.
    response = browser.post(f"/dcim/devices/{device.pk}/edit/", {**current(form), "serial": "SN-PAGES-1"})
    assert response.status_code == 302 and response["Location"] == f"/dcim/devices/{device.pk}/"
    device.refresh_from_db()
    assert device.serial == "SN-PAGES-1"
    detail = page(browser, f"/dcim/devices/{device.pk}/")
    assert "SN-PAGES-1" in detail and "Updated" in detail.split('id="changelog"')[1]
    assert other.name != device.name


def current(form_html: str) -> dict:
    """The values a form would post as it is shown (text inputs, selected options, checkboxes)."""
    import re

    values = dict(re.findall(r'<input id="id_(\w+)" type="text" name="\w+" value="([^"]*)"', form_html))
    for name, block in re.findall(r'<select id="id_(\w+)" name="\w+">(.*?)</select>', form_html, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', block)
        values[name] = chosen.group(1) if chosen else ""
    for name, block in re.findall(
        r'<select id="id_(\w+)" name="\w+" multiple[^>]*>(.*?)</select>', form_html, re.S
    ):
        values[name] = re.findall(r'<option value="([^"]*)" selected>', block)
    for name, text in re.findall(
        r'<textarea id="id_(\w+)" name="\w+"[^>]*>(.*?)</textarea>', form_html, re.S
    ):
        values[name] = text
    values.update(
        {name: "on" for name in re.findall(r'<input type="checkbox" name="(\w+)" checked>', form_html)}
    )
    from html import unescape

    return {name: value if isinstance(value, list) else unescape(value) for name, value in values.items()}


def test_create_and_delete(browser):
    from inventory.extras.models import Tag

    form = page(browser, "/extras/tags/add/")
    response = browser.post("/extras/tags/add/", {"name": ""})
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    response = browser.post(
        "/extras/tags/add/", {**current(form), "name": "from-the-page", "color": "aa1409"}
    )
    assert response.status_code == 302, response.content.decode()[:800]
    tag = Tag.objects.get(name="from-the-page")
    assert response["Location"] == f"/extras/tags/{tag.pk}/"
    assert "Delete tag from-the-page?" in page(browser, f"/extras/tags/{tag.pk}/delete/")
    response = browser.post(f"/extras/tags/{tag.pk}/delete/")
    assert response.status_code == 302 and response["Location"] == "/extras/tags/"
    assert not Tag.objects.filter(pk=tag.pk).exists()


def test_dashboard_links_to_pages_with_labels(browser):
    dashboard = page(browser, "/")
    assert "&quot;ipam.prefix&quot;:&quot;Prefix&quot;" in dashboard
    script = browser.get("/static/web/dashboard.js").getvalue().decode()
    assert '"/dcim/devices/"' in script and "pageOf(change.changed_object.url)" in script


def test_a_thousand_row_list_renders_within_twice_the_api_call(browser):
    import time

    from inventory.dcim.models import Location

    model = Location.objects.order_by("pk").first()
    Location.objects.bulk_create(
        Location(
            name=f"bulk-{i:04}", location_type=model.location_type, status=model.status, tenant=model.tenant
        )
        for i in range(1000)
    )

    def best(path: str) -> float:
        times = []
        for _ in range(4):  # the first run warms the document caches
            start = time.perf_counter()
            response = browser.get(path, {"limit": 1000, "name__isw": "bulk-"})
            times.append(time.perf_counter() - start)
            assert response.status_code == 200
        return min(times[1:])

    api, listed = best("/api/dcim/locations/"), best("/dcim/locations/")
    rows = browser.get("/dcim/locations/", {"limit": 1000, "name__isw": "bulk-"}).content.decode()
    assert rows.count('<tr><td><a href="/dcim/locations/') == 1000
    assert listed <= 2 * api, f"page {listed * 1000:.0f} ms, API {api * 1000:.0f} ms"


def test_edit_writes_many_to_many_fields_and_custom_fields(browser):
    from inventory.dcim.models import Device

    device = Device.objects.exclude(location=None).exclude(name=None).order_by("name").first()
    api = {"content_type": "application/json"}
    made = browser.post(
        "/api/extras/tags/",
        orjson.dumps([{"name": f"page-tag-{i}", "content_types": ["dcim.device"]} for i in range(2)]),
        **api,
    )
    assert made.status_code == 201, made.content
    tags = [tag["id"] for tag in made.json()]
    made = browser.post(
        "/api/extras/custom-fields/",
        orjson.dumps(
            {"label": "Asset owner", "key": "asset_owner", "type": "text", "content_types": ["dcim.device"]}
        ),
        **api,
    )
    assert made.status_code == 201, made.content
    form = page(browser, f"/dcim/devices/{device.pk}/edit/")
    assert '<select id="id_tags" name="tags" multiple' in form
    assert '<textarea id="id_custom_fields" name="custom_fields"' in form
    values = {**current(form), "tags": tags}
    values["custom_fields"] = '{"asset_owner": "noc"}'
    response = browser.post(f"/dcim/devices/{device.pk}/edit/", values)
    assert response.status_code == 302, response.content.decode()[:800]
    device.refresh_from_db()
    assert {str(pk) for pk in device.tags.values_list("pk", flat=True)} == set(tags)
    assert device._custom_field_data["asset_owner"] == "noc"
    # The form shows what was saved; choosing no tag clears them.
    form = page(browser, f"/dcim/devices/{device.pk}/edit/")
    assert all(f'<option value="{tag}" selected>' in form for tag in tags)
    assert "&quot;asset_owner&quot;: &quot;noc&quot;" in form
    values = {**current(form), "tags": []}
    assert browser.post(f"/dcim/devices/{device.pk}/edit/", values).status_code == 302
    assert not device.tags.exists()
    # Custom field values that are not an object, or that the API refuses, are shown on the form.
    response = browser.post(f"/dcim/devices/{device.pk}/edit/", {**values, "custom_fields": "[1]"})
    assert response.status_code == 400 and "Enter a JSON object" in response.content.decode()
    response = browser.post(
        f"/dcim/devices/{device.pk}/edit/", {**values, "custom_fields": '{"asset_owner": 5}'}
    )
    refused = browser.patch(
        f"/api/dcim/devices/{device.pk}/", orjson.dumps({"custom_fields": {"asset_owner": 5}}), **api
    )
    assert response.status_code == refused.status_code == 400
    messages = [m for m in _strings(refused.json()) if "must" in m or "Value" in m or "value" in m]
    assert messages and all(escape(m) in response.content.decode() for m in messages), refused.json()
    device.refresh_from_db()
    assert device._custom_field_data["asset_owner"] == "noc"


def _strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


def test_create_writes_content_types_typed_as_text(browser):
    from inventory.extras.models import Tag

    form = page(browser, "/extras/tags/add/")
    assert '<input id="id_content_types" type="text" name="content_types"' in form
    values = {**current(form), "name": "typed-types", "content_types": "dcim.device, ipam.prefix"}
    response = browser.post("/extras/tags/add/", values)
    assert response.status_code == 302, response.content.decode()[:800]
    tag = Tag.objects.get(name="typed-types")
    assert {(ct.app_label, ct.model) for ct in tag.content_types.all()} == {
        ("dcim", "device"),
        ("ipam", "prefix"),
    }
    response = browser.post(
        "/extras/tags/add/", {**values, "name": "bad-types", "content_types": "dcim.nope"}
    )
    assert response.status_code == 400 and "dcim.nope" in response.content.decode()


def test_detail_counts_objects_pointing_at_it_through_generic_relations(browser):
    from django.contrib.contenttypes.models import ContentType

    from inventory.dcim.models import Cable, Interface

    interface_type = ContentType.objects.get_for_model(Interface)
    cable = Cable.objects.filter(termination_a_type=interface_type).order_by("pk").first()
    assert cable is not None, "the sample cables interfaces"
    detail = page(browser, f"/dcim/interfaces/{cable.termination_a_id}/")
    link = f"/dcim/cables/?termination_a_type=dcim.interface&amp;termination_a_id={cable.termination_a_id}"
    assert f'<a href="{link}">Cables (termination a)</a> <span class="count">1</span>' in detail
    listed = page(
        browser,
        "/dcim/cables/",
        termination_a_type="dcim.interface",
        termination_a_id=str(cable.termination_a_id),
    )
    assert f'href="/dcim/cables/{cable.pk}/"' in listed and "1–1 of 1" in listed
    # A viewer who may not see cables is not told of them.
    client = signed_in("dcim.view_interface")
    assert "Cables (termination a)" not in page(client, f"/dcim/interfaces/{cable.termination_a_id}/")
