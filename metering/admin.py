"""Back office: the operator pause switches, allowance counters and the access log."""

from __future__ import annotations

from django.contrib import admin

from metering.models import AccessLogEntry, QuotaCounter, ServiceSwitches


@admin.register(ServiceSwitches)
class ServiceSwitchesAdmin(admin.ModelAdmin):
    list_display = ("__str__", "api_paused", "keyless_paused", "updated_at")

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return not ServiceSwitches.objects.exists()


@admin.register(QuotaCounter)
class QuotaCounterAdmin(admin.ModelAdmin):
    list_display = ("account", "environment", "kind", "period", "used")
    list_filter = ("environment", "kind")
    search_fields = ("account__email",)


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
