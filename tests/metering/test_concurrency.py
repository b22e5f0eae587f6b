"""In-flight ceilings: 6 screenings / 2 assessments per customer, and the shared pool."""

import threading
import time

import pytest
from django.test import Client

from config.api.errors import ApiError
from metering import concurrency
from tests.accounts import urls as test_urls

pytestmark = [pytest.mark.urls("tests.accounts.urls")]


def test_the_seventh_screening_in_flight_is_concurrency_limit():
    held = [concurrency.try_claim("screening:acc:test", concurrency.SCREENING_SLOTS) for _ in range(6)]
    assert all(held)
    with pytest.raises(ApiError) as error:
        with concurrency.customer_slot("screening", "acc", "test"):
            pass
    assert error.value.code == "concurrency_limit"
    for slot in held:
        concurrency.release(slot)
    with concurrency.customer_slot("screening", "acc", "test"):
        assert concurrency.in_use("screening:acc:test") == 1


def test_two_assessments_in_flight_is_the_customer_ceiling():
    with concurrency.customer_slot("assessment", "acc", "live"):
        with concurrency.customer_slot("assessment", "acc", "live"):
            with pytest.raises(ApiError) as error:
                with concurrency.customer_slot("assessment", "acc", "live"):
                    pass
    assert error.value.code == "concurrency_limit"


def test_a_full_service_pool_is_service_concurrency_limit(settings):
    settings.SERVICE_POOL_SIZE = 1
    with concurrency.customer_slot("screening", "one", "test"):
        with pytest.raises(ApiError) as error:
            with concurrency.customer_slot("screening", "two", "test"):
                pass
    assert error.value.code == "service_concurrency_limit"
    assert concurrency.in_use("screening:two:test") == 0


def test_slots_expire_so_a_crashed_request_never_leaks_one():
    for _ in range(2):
        assert concurrency.try_claim("assessment:crash:test", 2, ttl=1)
    assert concurrency.try_claim("assessment:crash:test", 2, ttl=1) is None
    time.sleep(1.1)
    assert concurrency.try_claim("assessment:crash:test", 2, ttl=1) is not None


@pytest.mark.django_db(transaction=True)
def test_parallel_requests_beyond_six_get_429_concurrency_limit(issue_key, keyed):
    raw = issue_key()
    test_urls.release_slow.clear()
    statuses = []

    def call(index):
        response = Client().post(
            "/api/v1/_test/metered",
            data={"imo": "9074729", "slow": True},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"c{index}",
            **keyed(raw),
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    deadline = time.time() + 5
    while len(statuses) < 2 and time.time() < deadline:
        time.sleep(0.02)
    test_urls.release_slow.set()
    for thread in threads:
        thread.join(15)
    assert sorted(statuses) == [201] * 6 + [429] * 2
