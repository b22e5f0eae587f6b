"""Back office: AIS loads (what each file brought in and dropped, or why it failed), the MMSI-to-hull
links with their basis, and the behaviour events with their evidence. All are records: read-only here;
AIS comes in through `manage.py load_ais` or the drop folder, never through the admin."""

from __future__ import annotations

from django.contrib import admin

from backoffice.adminkit import ReadOnlyAdmin
from behaviour.models import AisLink, AisLoad, BehaviourEvent


@admin.register(AisLoad)
class AisLoadAdmin(ReadOnlyAdmin):
    list_display = ("id", "file_name", "format", "status", "positions", "mmsis", "events", "origin", "finished_at")
    list_filter = ("status", "format", "origin")
    search_fields = ("file_name", "file_sha256")


@admin.register(AisLink)
class AisLinkAdmin(ReadOnlyAdmin):
    list_display = ("mmsi", "imo", "basis", "first_seen_at", "last_seen_at", "reports")
    list_filter = ("basis",)
    search_fields = ("=mmsi", "=imo")


@admin.register(BehaviourEvent)
class BehaviourEventAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "severity", "mmsi", "imo", "other_mmsi", "started_at", "summary")
    list_filter = ("kind", "severity")
    search_fields = ("=mmsi", "=imo", "id")
