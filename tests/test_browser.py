"""A real browser (headless Chromium from Debian's `chromium` and `chromium-driver` packages) signs
in, reads the dashboard, runs a query in GraphiQL and opens Swagger UI, against a live server.
A screenshot of the dashboard is kept in ARTEFACTS_DIR (default: <temp>/netinventory-artefacts)."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="headless Chromium is not installed (Debian packages chromium and chromium-driver; .ci/run installs them)",
)
PASSWORD = "browser-password"
WAIT_SECONDS = 60


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1400"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # where refusals by the CSP show
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def network(transactional_db):
    from inventory.dcim.models import Location, LocationType
    from inventory.extras.models import Status
    from inventory.ipam.models import IPAddress, Prefix
    from inventory.users.models import User
    from queryengine.changes import change_context

    User.objects.create_superuser("operator", "operator@example.com", PASSWORD)
    active = Status.objects.get_or_create(name="Active")[0]
    kind = LocationType.objects.create(name="Site")
    for name in ("AMS1", "FRA1", "LON1"):
        Location.objects.create(name=name, location_type=kind, status=active)
    for cidr, kind in (("10.0.0.0/16", "container"), ("10.0.1.0/24", "network")):
        prefix = Prefix(status=active, type=kind)
        prefix.set_prefix(cidr)
        prefix.save()
    with change_context("web", "the sites' import", User.objects.get(username="operator")):
        ams = Location.objects.get(name="AMS1")
        ams.name = "AMS1-renamed"
        ams.save()
    for host in range(1, 65):  # a quarter of 10.0.1.0/24
        address = IPAddress(status=active)
        address.set_address(f"10.0.1.{host}/24")
        address.save()


def refused_by_the_policy(browser) -> list[str]:
    """What the page's Content-Security-Policy blocked since the last call: nothing the service's
    own pages load or do."""
    return [
        entry["message"]
        for entry in browser.get_log("browser")
        if "Content Security Policy" in entry["message"]
    ]


def artefacts() -> Path:
    folder = Path(os.environ.get("ARTEFACTS_DIR") or Path(tempfile.gettempdir()) / "netinventory-artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.long
def test_sign_in_dashboard_graphiql_and_swagger(browser, live_server, network):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shown
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT_SECONDS)

    def text_of(selector: str) -> str:
        return browser.find_element(By.CSS_SELECTOR, selector).text

    # Signing in lands on the dashboard.
    browser.get(f"{live_server.url}/")
    wait.until(shown.url_contains("/login/"))
    browser.find_element(By.ID, "id_username").send_keys("operator")
    browser.find_element(By.ID, "id_password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait.until(shown.presence_of_element_located((By.CSS_SELECTOR, '[data-count="locations_count"]')))

    # Its figures come from GraphQL, POSTed with the session.
    assert text_of('[data-count="locations_count"] .value') == "3"
    assert text_of('[data-count="prefixes_count"] .value') == "2"
    assert text_of('[data-count="ip_addresses_count"] .value') == "64"
    wait.until(lambda _: "Active: 3" in text_of("#statuses"))
    wait.until(lambda _: "10.0.1.0/24" in text_of("#utilisation"))
    utilisation = text_of("#utilisation")
    assert "10.0.1.0/24\n25.0%" in utilisation  # 64 of 256 addresses
    assert "10.0.0.0/16\n0.4%" in utilisation  # one /24 of the /16 covered by a child prefix
    wait.until(lambda _: "AMS1-renamed" in text_of("#changes"))
    latest = browser.find_elements(By.CSS_SELECTOR, "#changes tr")[0].text  # newest first
    assert all(part in latest for part in ("operator", "Updated", "Location", "AMS1-renamed")), latest
    assert not browser.find_element(By.ID, "dashboard-error").is_displayed()
    screenshot = artefacts() / "dashboard.png"
    assert browser.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 0
    print(f"dashboard screenshot: {screenshot}")
    assert refused_by_the_policy(browser) == []

    # A script injected into the page (say, through a stored value rendered unescaped) is refused.
    browser.execute_script(
        "const s = document.createElement('script'); s.textContent = 'window.injected = 1'; document.body.append(s);"
    )
    assert browser.execute_script("return window.injected") is None
    assert refused_by_the_policy(browser)

    # GraphiQL loads from the service and runs a query as the signed-in user, no token pasted.
    browser.get(f"{live_server.url}/api/graphql/")
    wait.until(shown.presence_of_element_located((By.CSS_SELECTOR, ".graphiql-query-editor .CodeMirror")))
    # It carries the product's name and a first query that walks a device's relations.
    assert text_of(".graphiql-logo") == "NetInventory GraphQL"
    first = browser.execute_script(
        "return document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()"
    )
    assert "interfaces(name__isw" in first and "ip_addresses" in first
    browser.execute_script(
        "document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(arguments[0])",
        "{ locations_count }",
    )
    browser.find_element(By.CSS_SELECTOR, ".graphiql-execute-button").click()
    wait.until(lambda _: '"locations_count": 3' in text_of(".graphiql-response"))
    assert refused_by_the_policy(browser) == []

    # Swagger UI: "Try it out" on the status endpoint answers as the signed-in user.
    browser.get(f"{live_server.url}/api/docs/")
    operation = wait.until(shown.element_to_be_clickable((By.ID, "operations-status-status_get")))
    operation.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
    wait.until(shown.element_to_be_clickable((By.CSS_SELECTOR, ".try-out__btn"))).click()
    wait.until(shown.element_to_be_clickable((By.CSS_SELECTOR, ".execute"))).click()
    wait.until(
        lambda _: "netinventory-version" in text_of("#operations-status-status_get .responses-wrapper")
    )
    assert refused_by_the_policy(browser) == []


@pytest.fixture
def device_network(network):
    """A device with interfaces at one of the network's sites."""
    from django.contrib.contenttypes.models import ContentType

    from inventory.dcim.models import Device, DeviceType, Interface, Location, Manufacturer
    from inventory.extras.models import Role, Status

    from .dcim_sample import allow_dcim_at

    active = Status.objects.get(name="Active")
    active.content_types.add(
        *(ContentType.objects.get_by_natural_key("dcim", m) for m in ("device", "interface"))
    )
    site = Location.objects.get(name="FRA1")
    allow_dcim_at(site.location_type)
    role = Role.objects.create(name="edge")
    role.content_types.add(ContentType.objects.get_by_natural_key("dcim", "device"))
    kind = DeviceType.objects.create(manufacturer=Manufacturer.objects.create(name="Acme"), model="E48")
    device = Device.objects.create(name="edge1", device_type=kind, role=role, status=active, location=site)
    for port in range(1, 5):
        Interface.objects.create(device=device, name=f"eth{port}", type="1000base-t", status=active)
    return device


def test_sign_in_to_a_device_its_interfaces_an_edit_and_the_change_log(browser, live_server, device_network):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shown
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT_SECONDS)

    def text_of(selector: str) -> str:
        return browser.find_element(By.CSS_SELECTOR, selector).text

    browser.get(f"{live_server.url}/")
    wait.until(shown.url_contains("/login/"))
    browser.find_element(By.ID, "id_username").send_keys("operator")
    browser.find_element(By.ID, "id_password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()

    # The dashboard's tiles open the object lists; its change log names types by their labels.
    tile = wait.until(shown.element_to_be_clickable((By.CSS_SELECTOR, '[data-count="devices_count"]')))
    wait.until(lambda _: "Location" in text_of("#changes"))
    assert "dcim.location" not in text_of("#changes")
    tile.click()
    wait.until(shown.url_to_be(f"{live_server.url}/dcim/devices/"))
    assert "1–1 of 1" in text_of("#showing")

    # The device's page: its fields with human labels, its interfaces among its related objects.
    browser.find_element(By.LINK_TEXT, "edge1").click()
    wait.until(shown.presence_of_element_located((By.ID, "fields")))
    assert text_of("h1") == "Device edge1"
    fields = text_of("#fields")
    assert "Location FRA1" in fields and "Device type Acme E48" in fields
    browser.find_element(By.PARTIAL_LINK_TEXT, "Interfaces").click()
    wait.until(shown.url_contains("/dcim/interfaces/?device_id="))
    assert "1–4 of 4" in text_of("#showing")
    assert [
        a.text for a in browser.find_elements(By.CSS_SELECTOR, "table.objects tbody tr td:first-child a")
    ] == [
        "eth1",
        "eth2",
        "eth3",
        "eth4",
    ]

    # An edit: first a value the API refuses (its message on the field), then a good one.
    browser.find_element(By.LINK_TEXT, "eth2").click()
    wait.until(shown.element_to_be_clickable((By.ID, "edit"))).click()
    mtu = wait.until(shown.presence_of_element_located((By.ID, "id_mtu")))
    mtu.clear()
    mtu.send_keys("70000")
    browser.find_element(By.CSS_SELECTOR, "#object-form button[type=submit]").click()
    wait.until(shown.presence_of_element_located((By.CSS_SELECTOR, "#field-mtu .field-error")))
    assert "65536" in text_of("#field-mtu .field-error")
    mtu = browser.find_element(By.ID, "id_mtu")
    mtu.clear()
    mtu.send_keys("9000")
    description = browser.find_element(By.ID, "id_description")
    description.send_keys("uplink to core")
    browser.find_element(By.CSS_SELECTOR, "#object-form button[type=submit]").click()
    wait.until(shown.presence_of_element_located((By.ID, "changelog")))
    assert "Mtu 9000" in text_of("#fields") and "uplink to core" in text_of("#fields")

    # The change log shows the edit, by whom; its record opens as a page of its own.
    log = text_of("#changelog")
    assert "operator" in log and "Updated" in log
    browser.find_element(By.CSS_SELECTOR, "#changelog tbody tr:first-child a").click()
    wait.until(shown.url_contains("/extras/object-changes/"))
    assert "Object change" in text_of("h1")
    artefact = artefacts() / "object-change.png"
    assert browser.save_screenshot(str(artefact))
    assert refused_by_the_policy(browser) == []
