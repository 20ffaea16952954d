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
    assert all(part in latest for part in ("operator", "Updated", "dcim.location", "AMS1-renamed")), latest
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
