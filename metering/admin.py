"""Back office: the operator pause switches, allowance counters, the allowance ledger and the access log."""

from __future__ import annotations

from django.contrib import admin

from backoffice.adminkit import ReadOnlyAdmin
from metering import quota
from metering.models import AccessLogEntry, MeteringEvent, QuotaCounter, ServiceSwitches


@admin.register(ServiceSwitches)
class ServiceSwitchesAdmin(admin.ModelAdmin):
    list_display = ("__str__", "api_paused", "keyless_paused", "updated_at")

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return not ServiceSwitches.objects.exists()


@admin.register(QuotaCounter)
class QuotaCounterAdmin(admin.ModelAdmin):
    """A counter is the sum of its ledger entries: an operator's correction of `used` is entered as an
    adjustment (quota.adjust); counters are neither added nor deleted by hand."""

    list_display = ("account", "environment", "kind", "period", "used")
    list_filter = ("environment", "kind")
    search_fields = ("account__email",)
    fields = ("account", "environment", "kind", "period", "used")
    readonly_fields = ("account", "environment", "kind", "period")

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def save_model(self, request, obj, form, change) -> None:  # type: ignore[no-untyped-def]
        quota.adjust(obj, obj.used)


@admin.register(MeteringEvent)
class MeteringEventAdmin(ReadOnlyAdmin):
    """The allowance ledger, read-only: every charge, reservation, settlement, refund and adjustment."""

    list_display = ("at", "account", "environment", "kind", "period", "reason", "units", "imo")
    list_filter = ("environment", "kind", "reason")
    list_select_related = ("account",)
    search_fields = ("=account__email", "=imo")
    ordering = ("-id",)  # newest first on the primary-key index


@admin.register(AccessLogEntry)
class AccessLogEntryAdmin(admin.ModelAdmin):
    list_display = ("at", "account", "environment", "method", "path", "status", "code", "key_prefix", "duration_ms")
    list_filter = ("environment", "status", "method")
    search_fields = ("request_id", "path", "account__email")
    date_hierarchy = "at"

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
