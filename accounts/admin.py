"""Back office: accounts and keys (revoke; the secret is never shown)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from accounts.models import Account, ApiKey
from accounts.services import revoke_key


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = (
        "display_prefix", "environment", "label", "scopes", "allowed_ips", "expires_at", "revoked_at", "last_used_at",
    )
    readonly_fields = ("display_prefix", "environment", "scopes", "last_used_at", "revoked_at")
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ("email", "plan", "opened_on", "entitlement", "paused_reason", "appended_digit_correction")
    list_filter = ("plan", "entitlement", "appended_digit_correction")
    search_fields = ("email", "name", "id")
    readonly_fields = ("id", "created_at", "paused_at")
    inlines = [ApiKeyInline]
    actions = ["lift_pause"]

    @admin.action(description="Lift the free-account pause")
    def lift_pause(self, request, queryset) -> None:  # type: ignore[no-untyped-def]
        for account in queryset:
            account.paused_reason = ""
            account.paused_at = None
            account.save(update_fields=["paused_reason", "paused_at"])
        messages.success(request, f"Lifted the pause on {queryset.count()} account(s).")


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("display_prefix", "account", "environment", "label", "created_at", "last_used_at", "revoked_at")
    list_filter = ("environment",)
    search_fields = ("lookup", "account__email", "label")
    # The secret hash and pepper stay out of the admin entirely.
    fields = (
        "id", "account", "environment", "label", "scopes", "allowed_ips", "expires_at", "revoked_at", "last_used_at",
        "created_at",
    )
    readonly_fields = ("id", "account", "environment", "scopes", "revoked_at", "last_used_at", "created_at")
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False  # keys are issued by sign-up or `manage.py issue_key`, which show the secret once

    @admin.action(description="Revoke selected keys (effective on the next request)")
    def revoke(self, request, queryset) -> None:  # type: ignore[no-untyped-def]
        for key in queryset:
            revoke_key(key)
        messages.success(request, f"Revoked {queryset.count()} key(s) at {timezone.now():%Y-%m-%d %H:%M:%S} UTC.")
