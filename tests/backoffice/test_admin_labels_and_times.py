"""Issue 30 item 4: the back office's labels, times and the way to the operator console."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from accounts.models import Account, ApiKey
from backoffice.adminkit import iso_time
from backoffice.models import OperatorAction
from screening.models import SourceSnapshot

pytestmark = pytest.mark.django_db

CONSOLE = "/admin/backoffice/operatoraction/console/"
EVENING = datetime(2026, 5, 4, 20, 7, 9, tzinfo=UTC)  # the admin used to show "May 4, 2026, 8:07 p.m."


@pytest.fixture
def operator(client):
    user = get_user_model().objects.create_superuser("oncall", "oncall@operator.example", "Oncall-pass-123")
    client.force_login(user)
    return user


def test_the_admin_index_names_models_in_proper_plurals(client, operator):
    page = client.get("/admin/").content.decode()
    for right in ("Deliveries", "Screening batches", "Voyage batches", "API keys"):
        assert f">{right}<" in page, right
    for wrong in ("Deliverys", "batchs", "Api keys"):
        assert wrong not in page, wrong


def test_a_changelist_title_uses_the_api_key_label(client, operator):
    page = client.get("/admin/accounts/apikey/").content.decode()
    assert "Select API key to change" in page or "Select API key to view" in page
    assert "Api key" not in page


def test_the_admin_index_links_the_operator_console(client, operator):
    page = client.get("/admin/").content.decode()
    assert f'href="{CONSOLE}"' in page and "Operator console" in page


def test_staff_without_the_switch_permission_see_no_console_link(client):
    user = get_user_model().objects.create_user("viewer", "viewer@operator.example", "Viewer-pass-123", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_account"))
    client.force_login(user)
    page = client.get("/admin/").content.decode()
    assert page.count("Accounts") >= 1 and CONSOLE not in page


def test_iso_time_is_to_the_second_in_utc():
    assert iso_time(EVENING) == "2026-05-04 20:07:09 UTC"
    assert iso_time(None) == ""


def test_list_pages_show_times_to_the_second_in_utc(client, operator):
    OperatorAction.objects.create(operator=operator, operator_name="oncall", action="pause_api", at=EVENING)
    page = client.get("/admin/backoffice/operatoraction/").content.decode()
    assert "2026-05-04 20:07:09 UTC" in page
    assert "p.m." not in page and "a.m." not in page


def test_a_time_column_still_sorts_on_its_field(client, operator):
    OperatorAction.objects.create(operator=operator, operator_name="oncall", action="pause_api", at=EVENING)
    page = client.get("/admin/backoffice/operatoraction/", {"o": "0"}).content.decode()  # the first column: at
    assert "2026-05-04 20:07:09 UTC" in page and 'class="sortable column-at_utc sorted ascending"' in page


def test_detail_pages_show_read_only_times_to_the_second(client, operator):
    account = Account.objects.create(email="times@example.com")
    Account.objects.filter(pk=account.pk).update(created_at=EVENING)
    page = client.get(f"/admin/accounts/account/{account.pk}/change/").content.decode()
    assert "2026-05-04 20:07:09 UTC" in page and "p.m." not in page


def test_an_editable_time_keeps_its_widget(client, operator):
    account = Account.objects.create(email="keys@example.com")
    key = ApiKey.objects.create(account=account, environment="test", lookup="abcdefgh", expires_at=EVENING)
    page = client.get(f"/admin/accounts/apikey/{key.pk}/change/").content.decode()
    assert re.search(r'name="expires_at_0"[^>]*value="2026-05-04"', page), "expires_at stays editable"


def test_source_freshness_lists_times_to_the_second(client, operator):
    SourceSnapshot.objects.create(
        source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE, published_at=EVENING, retrieved_at=EVENING
    )
    listing = client.get("/admin/screening/sourcesnapshot/").content.decode()
    assert listing.count("2026-05-04 20:07:09 UTC") >= 2 and "p.m." not in listing
    console = client.get(CONSOLE).content.decode()
    assert console.count("2026-05-04 20:07:09 UTC") >= 2 and "p.m." not in console
