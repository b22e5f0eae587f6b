"""The back office shows AIS loads, links and behaviour events, read-only."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from behaviour.models import AisLoad, BehaviourEvent
from tests.backoffice.test_admin_labels_and_times import operator  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def test_an_operator_sees_each_load_with_its_counts_and_cannot_add_one(client, operator, ais_store, ny_harbor_hour):  # noqa: F811
    call_command("load_ais", str(ny_harbor_hour), stdout=io.StringIO())
    load = AisLoad.objects.get()
    listing = client.get("/admin/behaviour/aisload/").content.decode()
    assert load.file_name in listing and "committed" in listing
    assert ">AIS loads<" in client.get("/admin/").content.decode()
    assert client.get(f"/admin/behaviour/aisload/{load.pk}/change/").status_code == 200
    assert client.get("/admin/behaviour/aisload/add/").status_code == 403
    assert client.get("/admin/behaviour/aislink/").status_code == 200
    events = client.get("/admin/behaviour/behaviourevent/").content.decode()
    assert all(event.id in events for event in BehaviourEvent.objects.all()[:5])
