"""Issue 13 item 7: the back office shows endpoints (never their secrets), deliveries with their attempts
and the event log; operators disable and enable endpoints and redeliver, and cannot edit the records."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import issue_key
from webhooks.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint

pytestmark = pytest.mark.django_db

SECRET = "whsec_" + "5ec7e7" * 10
PREVIOUS = "whsec_" + "0ld5ec" * 10


@pytest.fixture
def endpoint() -> WebhookEndpoint:
    account, _, _ = issue_key(email="hooks@example.com", environment="live")
    return WebhookEndpoint.objects.create(
        account=account,
        environment="live",
        url="https://receiver.invalid/hooks",
        secret=SECRET,
        previous_secret=PREVIOUS,
        previous_secret_expires_at=timezone.now() + timedelta(hours=1),
    )


def _delivery(endpoint: WebhookEndpoint, status: str = Delivery.Status.DEAD) -> Delivery:
    event = Event.objects.create(
        account_id=endpoint.account_id,
        environment=endpoint.environment,
        type="usage.quota_warning",
        data={"used": 1600, "limit": 2000},
    )
    delivery = Delivery.objects.create(
        account_id=endpoint.account_id,
        environment=endpoint.environment,
        event=event,
        endpoint=endpoint,
        event_type=event.type,
        status=status,
        attempt_count=8,
        round_attempts=8,
        last_status_code=500,
    )
    DeliveryAttempt.objects.create(
        delivery=delivery, number=1, outcome=DeliveryAttempt.Outcome.FAILED, started_at=timezone.now(), status_code=500
    )
    return delivery


def _action(admin_client, model: str, action: str, *ids: str):  # type: ignore[no-untyped-def]
    return admin_client.post(
        f"/admin/webhooks/{model}/", {"action": action, "_selected_action": list(ids)}, follow=True
    )


def test_every_change_list_and_page_renders_and_no_secret_appears(admin_client, endpoint):
    delivery = _delivery(endpoint)
    pages = [
        "/admin/webhooks/webhookendpoint/",
        f"/admin/webhooks/webhookendpoint/{endpoint.pk}/change/",
        "/admin/webhooks/delivery/",
        f"/admin/webhooks/delivery/{delivery.pk}/change/",
        "/admin/webhooks/deliveryattempt/",
        "/admin/webhooks/event/",
        f"/admin/webhooks/event/{delivery.event_id}/change/",
    ]
    for page in pages:
        response = admin_client.get(page)
        assert response.status_code == 200, page
        html = response.content.decode()
        assert SECRET not in html and PREVIOUS not in html, page
        assert SECRET[6:] not in html and PREVIOUS[6:] not in html, page
    assert "https://receiver.invalid/hooks" in admin_client.get("/admin/webhooks/webhookendpoint/").content.decode()
    assert "500" in admin_client.get(f"/admin/webhooks/delivery/{delivery.pk}/change/").content.decode()


def test_operators_cannot_add_or_edit_deliveries_attempts_or_events(admin_client, endpoint):
    delivery = _delivery(endpoint)
    for model in ("delivery", "deliveryattempt", "event", "webhookendpoint"):
        assert admin_client.get(f"/admin/webhooks/{model}/add/").status_code == 403, model
    response = admin_client.post(f"/admin/webhooks/delivery/{delivery.pk}/change/", {"status": "delivered"})
    assert response.status_code == 403
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD


def test_the_disable_and_enable_actions_switch_the_endpoint(admin_client, endpoint):
    response = _action(admin_client, "webhookendpoint", "disable", endpoint.pk)
    assert response.status_code == 200
    endpoint.refresh_from_db()
    assert endpoint.enabled is False
    assert endpoint.secret == SECRET  # nothing else changed
    _action(admin_client, "webhookendpoint", "enable", endpoint.pk)
    endpoint.refresh_from_db()
    assert endpoint.enabled is True


def test_the_redeliver_action_makes_a_dead_delivery_pending_again(admin_client, endpoint):
    delivery = _delivery(endpoint)
    response = _action(admin_client, "delivery", "redeliver", delivery.pk)
    assert response.status_code == 200
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.PENDING
    assert delivery.round_attempts == 0 and delivery.next_attempt_at is not None
    assert delivery.event_id == Event.objects.get().pk  # the same event, so the same event id


def test_the_redeliver_action_reports_each_refused_row(admin_client, endpoint):
    in_flight = _delivery(endpoint, status=Delivery.Status.SENDING)
    dead = _delivery(endpoint)
    response = _action(admin_client, "delivery", "redeliver", in_flight.pk, dead.pk)
    html = response.content.decode()
    assert in_flight.pk in html and "in flight" in html
    in_flight.refresh_from_db()
    dead.refresh_from_db()
    assert in_flight.status == Delivery.Status.SENDING
    assert dead.status == Delivery.Status.PENDING
    messages = [(m.level_tag, str(m)) for m in response.context["messages"]]
    assert any(level == "warning" and in_flight.pk in text for level, text in messages), messages


def test_a_disabled_endpoint_s_delivery_is_not_redelivered(admin_client, endpoint):
    delivery = _delivery(endpoint)
    _action(admin_client, "webhookendpoint", "disable", endpoint.pk)
    response = _action(admin_client, "delivery", "redeliver", delivery.pk)
    assert "is disabled" in response.content.decode()
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD


def test_the_operator_s_endpoint_and_redelivery_actions_are_audited(admin_client, endpoint):
    from backoffice.models import OperatorAction

    delivery = _delivery(endpoint)
    _action(admin_client, "webhookendpoint", "disable", endpoint.pk)
    _action(admin_client, "webhookendpoint", "enable", endpoint.pk)
    _action(admin_client, "delivery", "redeliver", delivery.pk)
    audited = list(OperatorAction.objects.order_by("pk").values_list("action", "target_id", "before", "after"))
    assert [(action, target) for action, target, _, _ in audited] == [
        ("disable_endpoint", endpoint.pk),
        ("enable_endpoint", endpoint.pk),
        ("redeliver", delivery.pk),
    ]
    assert audited[0][2]["enabled"] is True and audited[0][3]["enabled"] is False
    assert audited[2][2]["status"] == "dead" and audited[2][3]["status"] == "pending"
