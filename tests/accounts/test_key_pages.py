"""Issue 17 item 2: after confirmation, the key pages: create (shown once), list, revoke, allowed_ips, usage, access log."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ALL_SCOPES, ApiKey
from metering.models import AccessLogEntry, QuotaCounter
from tests.accounts.test_signup import mail_dir, sign_up_and_confirm  # noqa: F401  (mail_dir: autouse fixture)

pytestmark = pytest.mark.django_db

RAW_KEY = re.compile(r'value="(svc_(?:test|live)_[A-Za-z0-9]{40})"')


@pytest.fixture
def account(client, mail_dir):  # noqa: F811
    return sign_up_and_confirm(client, mail_dir)


def create_key(client: Client, environment: str = "test", **fields):
    data = {"environment": environment, "label": "", "scopes": list(ALL_SCOPES), "allowed_ips": "", **fields}
    return client.post("/keys", data)


def raw_key_in(response) -> str:
    match = RAW_KEY.search(response.content.decode())
    assert match, response.content.decode()[:3000]
    return match.group(1)


def bearer(raw: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def test_a_new_key_is_shown_once_with_a_copy_button_and_its_prefix(client, account):
    response = create_key(client, "test", label="ci pipeline")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    raw = raw_key_in(response)
    key = ApiKey.objects.get(account=account)
    assert raw.startswith("svc_test_") and raw[len("svc_test_") :].startswith(key.lookup)
    assert 'id="copy-key"' in html and "shown only this once" in html
    # The copy button's script runs under the page's strict script policy: it carries the page's nonce.
    nonce = re.search(r'<script nonce="([^"]+)">', html).group(1)
    assert f"script-src 'self' 'nonce-{nonce}'" in response["Content-Security-Policy"]
    assert key.display_prefix in html and key.label == "ci pipeline"
    assert key.scopes == list(ALL_SCOPES) and key.allowed_ips == []
    listing = client.get("/keys").content.decode()
    assert raw not in listing  # never again
    assert key.display_prefix in listing and "ci pipeline" in listing and "all scopes" in listing
    assert "never" in listing  # last used


def test_test_and_live_keys_work_against_the_api_and_the_list_shows_last_use(client, account):
    test_raw = raw_key_in(create_key(client, "test"))
    live_raw = raw_key_in(create_key(client, "live"))
    assert test_raw.startswith("svc_test_") and live_raw.startswith("svc_live_")
    api = Client()
    assert api.get("/api/v1/usage", **bearer(test_raw)).json()["environment"] == "test"
    assert api.get("/api/v1/usage", **bearer(live_raw)).json()["environment"] == "live"
    listing = client.get("/keys").content.decode()
    assert listing.count(" UTC</td>") >= 4  # created and last-used times of both keys


def test_revoking_from_the_page_takes_effect_on_the_next_request(client, account):
    raw = raw_key_in(create_key(client, "test"))
    key = ApiKey.objects.get(account=account)
    api = Client()
    assert api.get("/api/v1/usage", **bearer(raw)).status_code == 200
    confirm_page = client.get(f"/keys/{key.id}/revoke")
    assert confirm_page.status_code == 200 and "Revoke this key" in confirm_page.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is None  # GET asks; only the POST revokes
    done = client.post(f"/keys/{key.id}/revoke", follow=True)
    assert "refused (401) from the next one" in done.content.decode()
    refused = api.get("/api/v1/usage", **bearer(raw))
    assert refused.status_code == 401 and "revoked" in refused.json()["message"]


def test_another_accounts_key_cannot_be_revoked(client, account, issue_key):
    issue_key("test", email="someone-else@shipping.example")
    other = ApiKey.objects.get(account__email="someone-else@shipping.example")
    assert client.post(f"/keys/{other.id}/revoke").status_code == 404
    other.refresh_from_db()
    assert other.revoked_at is None


def test_scopes_chosen_at_creation_are_fixed_on_the_key(client, account):
    raw = raw_key_in(create_key(client, "test", scopes=["usage:read"]))
    assert ApiKey.objects.get(account=account).scopes == ["usage:read"]
    refused = Client().get("/api/v1/access-log", **bearer(raw))
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"


def test_a_key_needs_at_least_one_scope(client, account):
    response = create_key(client, "test", scopes=[])
    assert response.status_code == 400 and "at least one scope" in response.content.decode()
    assert not ApiKey.objects.exists()


def test_allowed_ips_are_validated_normalised_and_enforced(client, account):
    response = create_key(client, "live", allowed_ips="203.0.113.0/24, 198.51.100.7\n2001:DB8::/32 203.0.113.0/24")
    raw = raw_key_in(response)
    key = ApiKey.objects.get(account=account)
    assert key.allowed_ips == ["203.0.113.0/24", "198.51.100.7/32", "2001:db8::/32"]
    assert "203.0.113.0/24" in client.get("/keys").content.decode()
    api = Client()
    outside = api.get("/api/v1/usage", REMOTE_ADDR="192.0.2.1", **bearer(raw))
    assert outside.status_code == 403 and outside.json()["code"] == "ip_not_allowed"
    assert api.get("/api/v1/usage", REMOTE_ADDR="203.0.113.99", **bearer(raw)).status_code == 200


@pytest.mark.parametrize(
    "entry, message",
    [
        ("10.0.0.300", "is not an IPv4/IPv6 address or CIDR range"),
        ("203.0.113.7/24", "has host bits set; the range it is in is 203.0.113.0/24"),
        ("2001:db8::1/32", "the range it is in is 2001:db8::/32"),
        ("office", "is not an IPv4/IPv6 address or CIDR range"),
        ("10.0.0.0/33", "is not an IPv4/IPv6 address or CIDR range"),
    ],
)
def test_invalid_cidrs_are_refused_with_a_clear_message_and_no_key(client, account, entry, message):
    response = create_key(client, "test", allowed_ips=f"198.51.100.7, {entry}")
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ApiKey.objects.exists()


def test_the_allowed_ips_format_is_documented_on_the_page(client, account):
    html = client.get("/keys").content.decode()
    assert "CIDR" in html and "203.0.113.0/24" in html and "2001:db8::/32" in html and "ip_not_allowed" in html


def test_an_account_holds_a_bounded_number_of_active_keys(client, account, monkeypatch):
    from portal import views

    monkeypatch.setattr(views, "MAX_ACTIVE_KEYS", 2)
    raw_key_in(create_key(client))
    raw_key_in(create_key(client))
    refused = create_key(client)
    assert refused.status_code == 400 and "at most 2 active keys" in refused.content.decode()
    assert ApiKey.objects.count() == 2


def test_logged_out_visitors_see_the_sign_up_page_at_keys_and_the_login_elsewhere(client):
    keys = client.get("/keys")
    assert keys.status_code == 200 and "Get a free API key" in keys.content.decode()
    assert "Log in to manage your keys" in keys.content.decode()
    assert client.post("/keys", {"environment": "test"}).status_code == 200
    assert not ApiKey.objects.exists()
    for path in ("/keys/usage", "/keys/access-log", "/keys/key_x/revoke"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login?next=")


def test_the_usage_page_shows_the_figures_of_get_usage_for_both_environments(client, account):
    test_raw = raw_key_in(create_key(client, "test"))
    live_raw = raw_key_in(create_key(client, "live"))
    month = timezone.now().strftime("%Y-%m")
    QuotaCounter.objects.create(account=account, environment="live", kind="screening", period="once", used=37)
    QuotaCounter.objects.create(account=account, environment="test", kind="screening", period=month, used=12)
    QuotaCounter.objects.create(account=account, environment="test", kind="assessment", period=month, used=5)
    html = client.get("/keys/usage").content.decode()
    for raw, environment in ((live_raw, "live"), (test_raw, "test")):
        body = Client().get("/api/v1/usage", **bearer(raw)).json()
        table = html.split(f'data-environment="{environment}"', 1)[1].split("</table>", 1)[0]
        for kind in ("screenings", "voyage_assessments"):
            figures = body["quota"][kind]
            row = table.split(f'data-kind="{kind}"', 1)[1].split("</tr>", 1)[0]
            cells = re.findall(r'<td class="num">(\d+)</td>', row)
            assert cells == [str(figures["used"]), str(figures["limit"]), str(figures["remaining"])], (
                environment,
                kind,
            )
            if figures["one_time"]:
                assert "one-time total" in row
            else:
                assert figures["resets_at"] in row


def test_the_access_log_page_shows_both_environments_newest_first(client, account):
    test_raw = raw_key_in(create_key(client, "test"))
    live_raw = raw_key_in(create_key(client, "live"))
    api = Client()
    api.get("/api/v1/usage", **bearer(test_raw))
    api.get("/api/v1/access-log", **bearer(live_raw))
    api.get("/api/v1/no-such-thing", **bearer(live_raw))
    html = client.get("/keys/access-log").content.decode()
    assert "GET /api/v1/usage" in html and "GET /api/v1/access-log" in html and "404" in html
    assert html.index("/api/v1/no-such-thing") < html.index("GET /api/v1/usage")
    live_only = client.get("/keys/access-log?environment=live").content.decode()
    assert "GET /api/v1/usage" not in live_only and "GET /api/v1/access-log" in live_only


def test_the_access_log_page_pages_and_shows_only_this_account(client, account, issue_key):
    from core.api.ids import new_id

    now = timezone.now()
    rows = [
        AccessLogEntry(
            id=new_id("log"),
            account=account,
            environment="test" if n % 2 else "live",
            at=now - timedelta(seconds=100 - n),
            method="GET",
            path=f"/api/v1/screenings/scr_{n:03d}",
            status=200,
            request_id=f"req_{n:03d}",
            key_prefix="svc_test_abcdef",
            duration_ms=1.0,
        )
        for n in range(60)
    ]
    AccessLogEntry.objects.bulk_create(rows)
    issue_key("test", email="someone-else@shipping.example")
    other = ApiKey.objects.get(account__email="someone-else@shipping.example").account
    AccessLogEntry.objects.create(
        id=new_id("log"),
        account=other,
        environment="test",
        at=now,
        method="GET",
        path="/api/v1/secret-of-another",
        status=200,
        request_id="req_other",
        key_prefix="svc_test_zzzzzz",
        duration_ms=1.0,
    )
    first = client.get("/keys/access-log").content.decode()
    assert "secret-of-another" not in first
    assert first.count("/api/v1/screenings/scr_") == 50 and "scr_059" in first and "scr_009" not in first
    older = re.search(r'href="\?cursor=([^"]+)"', first).group(1)
    second = client.get(f"/keys/access-log?cursor={older}").content.decode()
    assert second.count("/api/v1/screenings/scr_") == 10 and "scr_000" in second and "scr_059" not in second
    assert "Older entries" not in second
    assert client.get("/keys/access-log?cursor=%%%").status_code == 302
