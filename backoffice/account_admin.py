"""Back office: accounts and keys (the secret is never shown). Every operator change is audited
(backoffice.services / backoffice.audit): the actions below, and edits on the change forms."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.template.response import TemplateResponse

from accounts.models import Account, ApiKey
from backoffice import audit, services
from backoffice.adminkit import CappedCountPaginator, IsoTimesAdmin, IsoTimesInline


class ApiKeyInline(IsoTimesInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = (
        "display_prefix",
        "environment",
        "label",
        "scopes",
        "allowed_ips",
        "expires_at",
        "revoked_at",
        "last_used_at",
    )
    readonly_fields = fields  # revoke with the key action (audited); edits on the key's own page
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class _AuditedEdits(IsoTimesAdmin):
    """Edits on the change form are audited with the fields they changed, before and after."""

    show_full_result_count = False
    paginator = CappedCountPaginator
    list_per_page = 50

    def save_model(self, request, obj, form, change) -> None:
        with transaction.atomic():
            changed = list(form.changed_data)
            before = {name: form.initial.get(name) for name in changed}
            super().save_model(request, obj, form, change)
            if changed:
                audit.record(
                    request.user,
                    "edit",
                    obj,
                    before=before,
                    after=audit.snapshot(obj, changed),
                    note="change form" if change else "added",
                )


class PauseForm(forms.Form):
    reason = forms.CharField(max_length=300, help_text="Shown to the customer in the 402 message.")


class PilotForm(forms.Form):
    total = forms.IntegerField(min_value=0, required=False, help_text="One-time live screenings; empty: the plan's.")
    note = forms.CharField(max_length=500, required=False)


def _with_form(modeladmin, request, queryset, form_class, title: str, apply):
    """An action that asks for input first (Django's intermediate-page pattern)."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        for obj in queryset:
            apply(obj, form.cleaned_data)
        modeladmin.message_user(request, f"{title}: {queryset.count()} account(s).", messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "queryset": queryset,
        "action": request.POST.get("action"),
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "backoffice/action_form.html", context)


@admin.register(Account)
class AccountAdmin(_AuditedEdits):
    list_display = (
        "email",
        "plan",
        "opened_on",
        "entitlement",
        "paused_reason",
        "appended_digit_correction",
        "pilot_screening_total",
        "user",
    )
    list_filter = ("plan", "entitlement", "appended_digit_correction")
    list_select_related = ("user",)
    search_fields = ("=email", "=id", "name")
    ordering = ("-created_at",)
    # The pause, the correction flag and the pilot allowance change only through the audited actions.
    readonly_fields = (
        "id",
        "created_at",
        "paused_reason",
        "paused_at",
        "appended_digit_correction",
        "pilot_screening_total",
        "user",
    )
    inlines = [ApiKeyInline]
    actions = [
        "pause_accounts",
        "lift_pause",
        "enable_correction",
        "disable_correction",
        "grant_pilot",
        "revoke_all_keys",
    ]

    @admin.action(description="Pause the account (402, with a reason)")
    def pause_accounts(self, request, queryset):
        return _with_form(
            self,
            request,
            queryset,
            PauseForm,
            "Pause accounts",
            lambda account, data: services.pause_account(request.user, account, data["reason"]),
        )

    @admin.action(description="Lift the free-account pause")
    def lift_pause(self, request, queryset) -> None:
        for account in queryset:
            services.unpause_account(request.user, account)
        messages.success(request, f"Lifted the pause on {queryset.count()} account(s).")

    @admin.action(description="Turn the appended-digit correction on")
    def enable_correction(self, request, queryset) -> None:
        for account in queryset:
            services.set_appended_digit_correction(request.user, account, True)
        messages.success(request, f"Appended-digit correction on for {queryset.count()} account(s).")

    @admin.action(description="Turn the appended-digit correction off")
    def disable_correction(self, request, queryset) -> None:
        for account in queryset:
            services.set_appended_digit_correction(request.user, account, False)
        messages.success(request, f"Appended-digit correction off for {queryset.count()} account(s).")

    @admin.action(description="Grant a pilot allowance (one-time live screenings)")
    def grant_pilot(self, request, queryset):
        return _with_form(
            self,
            request,
            queryset,
            PilotForm,
            "Grant a pilot allowance",
            lambda account, data: services.grant_pilot_allowance(request.user, account, data["total"], data["note"]),
        )

    @admin.action(description="Revoke every key of the account (effective on the next request)")
    def revoke_all_keys(self, request, queryset) -> None:
        count = services.revoke_keys(request.user, ApiKey.objects.filter(account__in=queryset, revoked_at__isnull=True))
        messages.success(request, f"Revoked {count} key(s).")


@admin.register(ApiKey)
class ApiKeyAdmin(_AuditedEdits):
    list_display = ("display_prefix", "account", "environment", "label", "created_at", "last_used_at", "revoked_at")
    list_filter = ("environment",)
    list_select_related = ("account",)
    search_fields = ("=lookup", "=id", "=account__email", "label")
    ordering = ("-created_at",)
    # The secret hash and pepper stay out of the admin entirely.
    fields = (
        "id",
        "account",
        "environment",
        "label",
        "scopes",
        "allowed_ips",
        "expires_at",
        "revoked_at",
        "last_used_at",
        "created_at",
    )
    readonly_fields = ("id", "account", "environment", "scopes", "revoked_at", "last_used_at", "created_at")
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        return False  # keys are issued by sign-up or `manage.py issue_key`, which show the secret once

    @admin.action(description="Revoke selected keys (effective on the next request)")
    def revoke(self, request, queryset) -> None:
        count = services.revoke_keys(request.user, queryset)
        messages.success(request, f"Revoked {count} key(s).")
