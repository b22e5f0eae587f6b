"""Back office: webhook endpoints (disable, enable; the secrets are never shown), deliveries with their
attempts (redeliver) and the event log. Deliveries, attempts and events are records: read-only here."""

from __future__ import annotations

from django.contrib import admin, messages

from backoffice import services
from backoffice.adminkit import IsoTimesInline, ReadOnlyAdmin
from core.api.errors import ApiError
from webhooks.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ReadOnlyAdmin):
    list_display = ("id", "account", "environment", "url", "enabled", "disabled_reason", "created_at")
    list_filter = ("environment", "enabled")
    search_fields = ("id", "url", "account__email", "description")
    # `secret` and `previous_secret` stay out of the admin entirely; customers change endpoints through
    # the API (which checks the URL), operators disable and enable them with the actions below.
    fields = (
        "id",
        "account",
        "environment",
        "url",
        "event_types",
        "enabled",
        "disabled_reason",
        "description",
        "previous_secret_expires_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ["disable", "enable"]

    @admin.action(description="Disable selected endpoints")
    def disable(self, request, queryset) -> None:
        self._set_enabled(request, queryset, enabled=False)

    @admin.action(description="Enable selected endpoints")
    def enable(self, request, queryset) -> None:
        self._set_enabled(request, queryset, enabled=True)

    def _set_enabled(self, request, queryset, *, enabled: bool) -> None:
        done = 0
        for endpoint in queryset:
            try:
                services.set_endpoint_enabled(request.user, endpoint, enabled)
            except ApiError as exc:
                self.message_user(request, f"{endpoint.id}: {exc.message}", level=messages.WARNING)
            else:
                done += 1
        self.message_user(request, f"{'Enabled' if enabled else 'Disabled'} {done} endpoint(s).", messages.SUCCESS)


class DeliveryAttemptInline(IsoTimesInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    fields = ("number", "trigger", "outcome", "started_at", "duration_ms", "status_code", "error", "response_excerpt")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ("id", "event_type", "endpoint", "status", "attempt_count", "last_status_code", "created_at")
    list_filter = ("status", "event_type", "environment")
    search_fields = ("id", "event__id", "endpoint__id", "endpoint__url", "account__email")
    list_select_related = ("endpoint",)
    date_hierarchy = "created_at"
    inlines = [DeliveryAttemptInline]
    actions = ["redeliver"]

    @admin.action(description="Redeliver selected deliveries")
    def redeliver(self, request, queryset) -> None:
        done = 0
        for delivery in queryset:
            try:
                services.redeliver(request.user, delivery)
            except ApiError as exc:
                self.message_user(request, f"{delivery.id}: {exc.message}", level=messages.WARNING)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                f"Queued {done} delivery(ies) again (same event id; the retry schedule starts again).",
                messages.SUCCESS,
            )


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(ReadOnlyAdmin):
    list_display = ("delivery", "number", "trigger", "outcome", "started_at", "status_code", "duration_ms")
    list_filter = ("outcome", "trigger")
    search_fields = ("delivery__id",)
    list_select_related = ("delivery",)


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("id", "type", "account", "environment", "created_at")
    list_filter = ("type", "environment")
    search_fields = ("id", "account__email")
    date_hierarchy = "created_at"
