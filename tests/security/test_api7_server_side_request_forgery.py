"""API7 Server Side Request Forgery: every call out goes through the one guarded client, and the
webhook URL a customer sends cannot reach a private address however it is spelt.

The guard itself (core/outbound.py: every address a name resolves to checked, the connection made
to the checked address, redirects checked again, never https→http, no redirect on a POST) is
tested in tests/platform/test_outbound.py; the webhook URL field in
tests/webhooks/test_endpoints.py::test_urls_that_are_not_public_https_are_refused_on_the_url_field;
the check again at delivery time (a name that resolves elsewhere later) in
tests/webhooks/test_deliveries.py::test_the_address_is_checked_again_at_connect_time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.security.conftest import send

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent
SERVICE_PACKAGES = (
    "accounts", "backoffice", "cargo", "config", "exports", "jobs", "mcp_bridge", "metering", "monitoring",
    "screening", "voyages", "webhooks",
)  # fmt: skip
# Libraries that open connections to an address of the caller's choosing.
NETWORK_CLIENTS = {"requests", "urllib3", "httpx", "httpx2", "http.client", "urllib.request", "aiohttp", "pycurl", "socket", "ftplib", "smtplib"}  # fmt: skip
GUARDED_CLIENT = "core/outbound.py"
# Imports that open nothing, each with its reason (a new network import anywhere fails the test).
OPENS_NOTHING = {
    "metering/idempotency.py": {"socket"},  # socket.gethostname() names the process holding a key
    "portal/views.py": {"smtplib", "smtplib.SMTPException"},  # catches the mail backend's error
}


def _network_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found |= {name for name in names if name in NETWORK_CLIENTS or name.split(".")[0] in NETWORK_CLIENTS - {"http", "urllib"}}  # fmt: skip
    return found


def test_only_the_guarded_client_imports_a_network_client():
    offenders = {}
    for package in SERVICE_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or relative == GUARDED_CLIENT:
                continue
            imported = _network_imports(path) - OPENS_NOTHING.get(relative, set())
            if imported:
                offenders[relative] = sorted(imported)
    assert not offenders, f"call out through core.outbound, not directly: {offenders}"
    assert _network_imports(ROOT / GUARDED_CLIENT) >= {"urllib3"}  # the check looks at real imports


@pytest.mark.parametrize(
    "url",
    [
        "https://0x7f000001/hook",  # hexadecimal IPv4
        "https://2130706433/hook",  # decimal IPv4
        "https://0177.0.0.1/hook",  # octal IPv4
        "https://127.1/hook",  # short IPv4
        "https://0.0.0.0/hook",
        "https://[::ffff:127.0.0.1]/hook",  # IPv4-mapped IPv6
        "https://[::ffff:a9fe:a9fe]/hook",  # the metadata address, mapped
        "https://[64:ff9b::a9fe:a9fe]/hook",  # NAT64 of the metadata address
        "https://[2002:a9fe:a9fe::]/hook",  # 6to4 of the metadata address
        "https://[fe80::1%eth0]/hook",  # link-local with a zone
        "https://[::]/hook",
        "https://LOCALHOST/hook",
        "https://localhost./hook",
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://10.0.0.1#@hooks.example.com/hook",  # a fragment that makes the host look public
        "https://hooks.example.com@169.254.169.254/hook",  # credentials that make the host look public
    ],
)
def test_private_addresses_are_refused_as_webhook_urls_however_they_are_spelt(client, issue_key, url):
    from webhooks.models import WebhookEndpoint

    raw = issue_key("live")
    created = send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": url})
    assert created.status_code == 422, created.content
    assert created.json()["field_violations"][0]["field"] == "url"
    public = send(client, "post", raw, "/api/v1/webhook-endpoints", {"url": "https://receiver.invalid/hook"}).json()
    changed = send(client, "patch", raw, f"/api/v1/webhook-endpoints/{public['id']}", {"url": url})
    assert changed.status_code == 422, changed.content
    assert list(WebhookEndpoint.objects.values_list("url", flat=True)) == ["https://receiver.invalid/hook"]
