"""Back office: the allowance counters and the allowance ledger (the pause switches and the access log
are in backoffice/admin.py)."""

from __future__ import annotations

from django.contrib import admin

from backoffice.adminkit import ReadOnlyAdmin
from metering import quota
from metering.models import MeteringEvent, QuotaCounter


@admin.register(QuotaCounter)
class QuotaCounterAdmin(admin.ModelAdmin):
    """A counter is the sum of its ledger entries: an operator's correction of `used` is entered as an
    adjustment (quota.adjust); counters are neither added nor deleted by hand."""

    list_display = ("account", "environment", "kind", "period", "used")
    list_filter = ("environment", "kind")
    search_fields = ("account__email",)
    fields = ("account", "environment", "kind", "period", "used")
    readonly_fields = ("account", "environment", "kind", "period")

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        quota.adjust(obj, obj.used)


@admin.register(MeteringEvent)
class MeteringEventAdmin(ReadOnlyAdmin):
    """The allowance ledger, read-only: every charge, reservation, settlement, refund and adjustment."""

    list_display = ("at", "account", "environment", "kind", "period", "reason", "units", "imo")
    list_filter = ("environment", "kind", "reason")
    list_select_related = ("account",)
    search_fields = ("=account__email", "=imo")
    ordering = ("-id",)  # newest first on the primary-key index
