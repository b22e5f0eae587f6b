"""Follow-up attempts are claimed under a lease fenced by the claim number (screening/resolution.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.leases import LeaseLost
from metering.models import QuotaCounter
from screening import demo, resolution, services
from screening.models import FollowUp, Screening
from webhooks.models import Event

from .api.test_identity_and_resolution import _name_the_hull

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(issue_key):
    return issue_key("test", email="claims@example.com")


@pytest.fixture
def open_follow_up(demo_world, key, screen):
    screen(key, demo.INCOMPLETE_IDENTITY)
    return FollowUp.objects.get()


def test_a_follow_up_held_by_a_live_claim_is_not_claimed_again_or_listed_as_due(open_follow_up):
    now = timezone.now()
    FollowUp.objects.update(next_attempt_at=now - timedelta(minutes=1))
    read_twice = [FollowUp.objects.get(), FollowUp.objects.get()]
    assert resolution.claim(read_twice[0], now) is not None
    assert resolution.claim(read_twice[1], now) is None
    assert resolution.due(now) == []
    assert services.attempt_follow_up(read_twice[1], now) == resolution.AttemptOutcome.SKIPPED


def test_a_follow_up_read_before_another_run_advanced_it_is_not_attempted_again(open_follow_up):
    stale = FollowUp.objects.get()
    assert services.attempt_follow_up(FollowUp.objects.get()) == "pending"
    assert services.attempt_follow_up(stale) == resolution.AttemptOutcome.SKIPPED
    assert FollowUp.objects.get().attempts == 1


def test_a_claim_whose_lease_lapsed_and_was_taken_over_writes_nothing(open_follow_up):
    now = timezone.now()
    first = resolution.claim(FollowUp.objects.get(), now)
    later = resolution.LEASE.expiry(now) + timedelta(seconds=1)
    second = resolution.claim(FollowUp.objects.get(), later)
    assert second is not None and second.claims == first.claims + 1
    with pytest.raises(LeaseLost):
        resolution.settle(first, later, attempts=1)
    resolution.settle(second, later, attempts=1)
    assert FollowUp.objects.get().lease_expires_at is None


def test_a_verdict_that_answers_the_hull_during_an_attempt_leaves_the_attempt_nothing_to_write(
    open_follow_up, key, screen
):
    claimed = resolution.claim(FollowUp.objects.get(), timezone.now())
    _name_the_hull()
    answer = screen(key, demo.INCOMPLETE_IDENTITY).json()  # the customer's own re-screen finds the name
    assert answer["supersedes"] == open_follow_up.screening_id
    with pytest.raises(LeaseLost):
        resolution.settle(claimed, timezone.now())
    assert services.attempt_follow_up(claimed) == resolution.AttemptOutcome.SKIPPED
    assert Screening.objects.filter(origin=services.ORIGIN_RESOLUTION).count() == 0
    assert QuotaCounter.objects.get(kind="screening").used == 1
    assert Event.objects.filter(type="screening.resolved").count() == 1


def test_an_attempt_that_fails_releases_its_claim_for_the_next_run(open_follow_up, monkeypatch):
    def broken_engine(*args, **kwargs):
        raise RuntimeError("register store unreadable")

    monkeypatch.setattr(services.engine, "screen_hull", broken_engine)
    with pytest.raises(RuntimeError):
        services.attempt_follow_up(FollowUp.objects.get())
    follow_up = FollowUp.objects.get()
    assert follow_up.lease_expires_at is None and follow_up.attempts == 0 and follow_up.claims == 1


def test_a_second_concurrent_enrolment_joins_the_open_follow_up(open_follow_up):
    newer = Screening.objects.get()
    newer.pk = "scr_newer"
    newer.save(force_insert=True)
    joined = resolution.enroll(
        open_follow_up.account_id,
        open_follow_up.environment,
        open_follow_up.imo,
        "scr_newer",
        "identity",
        None,
        timezone.now(),
        open_follow_up_id=None,  # it read the hull before the first follow-up committed
    )
    assert joined.pk == open_follow_up.pk and joined.screening_id == "scr_newer"
    assert FollowUp.objects.count() == 1
