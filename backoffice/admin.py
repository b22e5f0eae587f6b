"""Back office (Django admin): the operator console, read-only lookups, source freshness, the audit.

- The operator console (/admin/backoffice/operatoraction/console/): pause and resume the keyed API
  and the keyless lane with the Retry-After to send, look up any record by id, see source freshness
  and queue a refresh. Every change goes through backoffice.services, which audits it.
- Screenings, assessments, batches, cargo screenings, fleets, vessel and corridor monitors and exports:
  read-only, found by exact id, the stored document (or the document as GET answers it) shown.
- The access log: read-only, newest first by primary key (a ULID), no full count.
- Accounts and keys (backoffice/account_admin.py), the allowance counters and ledger
  (backoffice/metering_admin.py) and webhook endpoints and deliveries (backoffice/webhook_admin.py),
  registered from here; their actions go through backoffice.services, which audits them.

List pages on large tables: list_select_related, ordering on an indexed column, no full-table
count (`show_full_result_count = False` and a paginator whose count stops at COUNT_CAP).
"""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.models import Account, ApiKey
from backoffice import (
    account_admin,  # noqa: F401  (registers accounts and keys)
    behaviour_admin,  # noqa: F401  (registers AIS loads, links and behaviour events)
    metering_admin,  # noqa: F401  (registers the allowance counters and ledger)
    services,
    webhook_admin,  # noqa: F401  (registers endpoints, deliveries and events)
)
from backoffice.adminkit import ReadOnlyAdmin, pretty_json
from backoffice.models import OperatorAction
from cargo import selectors as cargo_selectors
from cargo.models import CargoScreening
from exports import selectors as export_selectors
from exports.models import Export
from metering.models import AccessLogEntry, ServiceSwitches
from metering.switches import current_switches, forget_cached
from monitoring import corridor_selectors, vessel_selectors
from monitoring.models import CorridorMonitor, VesselMonitor
from screening import batches as screening_batches
from screening import decisions, fleet_selectors, freshness
from screening.models import Fleet, MatchDecision, Screening, ScreeningBatch, SourceSnapshot
from voyages import selectors as voyage_selectors
from voyages.models import VoyageAssessment, VoyageBatch

# The admin index opens with a link to the operator console (for operators allowed to use it).
admin.site.index_template = "backoffice/admin_index.html"

# -- the audit ---------------------------------------------------------------------------------------------


class SwitchForm(forms.Form):
    lane = forms.ChoiceField(choices=[("api", "keyed API"), ("keyless", "keyless lane")], widget=forms.HiddenInput)
    paused = forms.TypedChoiceField(coerce=lambda v: v == "1", choices=[("1", "pause"), ("0", "resume")])
    retry_after = forms.IntegerField(min_value=1, max_value=86_400, required=False, label="Retry-After (seconds)")
    note = forms.CharField(max_length=500, required=False)


class LookupForm(forms.Form):
    record_id = forms.CharField(
        max_length=64, label="Id (scr_…, vas_…, sbt_…, vab_…, cgs_…, flt_…, mdc_…, vmo_…, cmo_…, exp_…, key_…, acc_…)"
    )


def _lookup_models() -> dict[str, type[models.Model]]:
    return {
        "scr": Screening,
        "sbt": ScreeningBatch,
        "vas": VoyageAssessment,
        "vab": VoyageBatch,
        "cgs": CargoScreening,
        "flt": Fleet,
        "mdc": MatchDecision,
        "vmo": VesselMonitor,
        "cmo": CorridorMonitor,
        "exp": Export,
        "key": ApiKey,
        "acc": Account,
    }


@admin.register(OperatorAction)
class OperatorActionAdmin(ReadOnlyAdmin):
    """Who did what, when, with the state before and after: read-only (the services write it)."""

    list_display = ("at", "operator_name", "action", "target_type", "target_id", "target_label", "note")
    list_filter = ("action", "target_type")
    search_fields = ("=target_id", "=operator_name")
    ordering = ("-at", "-id")
    fields = ("at", "operator_name", "action", "target_type", "target_id", "target_label", "before_", "after_", "note")
    readonly_fields = fields

    @admin.display(description="before")
    def before_(self, obj: OperatorAction) -> str:
        return pretty_json(obj.before)

    @admin.display(description="after")
    def after_(self, obj: OperatorAction) -> str:
        return pretty_json(obj.after)

    def get_urls(self):
        return [
            path("console/", self.admin_site.admin_view(self.console), name="backoffice_console"),
            *super().get_urls(),
        ]

    def console(self, request: HttpRequest) -> HttpResponse:
        """Pause switches, lookup by id, source freshness: one page for the operator on call."""
        if not request.user.is_staff or not request.user.has_perm("metering.change_serviceswitches"):
            messages.error(request, "You need the permission to change the service switches.")
            return HttpResponseRedirect(reverse("admin:index"))
        switch_form, lookup_form = SwitchForm(), LookupForm()
        if request.method == "POST" and "lane" in request.POST:
            switch_form = SwitchForm(request.POST)
            if switch_form.is_valid():
                data = switch_form.cleaned_data
                services.set_pause(request.user, data["lane"], data["paused"], data["retry_after"], data["note"])
                forget_cached()
                messages.success(request, f"{'Paused' if data['paused'] else 'Resumed'} the {data['lane']} lane.")
                return HttpResponseRedirect(request.path)
        elif request.method == "POST" and "refresh_source" in request.POST:
            source, _, edition = request.POST["refresh_source"].partition("/")
            services.request_source_refresh(request.user, source, edition, note=request.POST.get("note", ""))
            messages.success(request, f"Queued a refresh of {request.POST['refresh_source']} from its official URL.")
            return HttpResponseRedirect(request.path)
        elif "record_id" in request.GET:
            lookup_form = LookupForm(request.GET)
            if lookup_form.is_valid():
                record_id = lookup_form.cleaned_data["record_id"].strip()
                model = _lookup_models().get(record_id.partition("_")[0])
                if model is not None and model._default_manager.filter(pk=record_id).exists():
                    meta = model._meta
                    return HttpResponseRedirect(
                        reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[record_id])
                    )
                messages.error(request, f"No record has the id {record_id}.")
        forget_cached()
        context = {
            **self.admin_site.each_context(request),
            "title": "Operator console",
            "switches": current_switches(),
            "switch_form": switch_form,
            "lookup_form": lookup_form,
            "sources": _source_freshness(),
            "recent": OperatorAction.objects.order_by("-at", "-id")[:15],
        }
        return TemplateResponse(request, "backoffice/console.html", context)


def _source_freshness() -> list:
    """The serving (newest active) snapshot of each source and edition."""
    newest: dict[tuple[str, str], SourceSnapshot] = {}
    active = SourceSnapshot.objects.filter(status=SourceSnapshot.Status.ACTIVE).order_by("source", "edition")
    for snapshot in active.defer("message").order_by("-retrieved_at"):
        newest.setdefault((snapshot.source, snapshot.edition), snapshot)
    return [newest[key] for key in sorted(newest)]


# -- the pause switches and the access log (with the audit and without counts) --


@admin.register(ServiceSwitches)
class ServiceSwitchesAdmin(ReadOnlyAdmin):
    """Shown here; changed only on the operator console, which audits every change."""

    list_display = (
        "__str__",
        "api_paused",
        "api_paused_retry_after",
        "keyless_paused",
        "keyless_paused_retry_after",
        "updated_at",
        "console",
    )

    @admin.display(description="change")
    def console(self, obj: ServiceSwitches) -> str:
        return format_html('<a href="{}">operator console</a>', reverse("admin:backoffice_console"))


@admin.register(AccessLogEntry)
class AccessLogEntryAdmin(ReadOnlyAdmin):
    list_display = ("at", "account", "environment", "method", "path", "status", "code", "key_prefix", "duration_ms")
    list_filter = ("environment",)
    list_select_related = ("account",)
    search_fields = ("=request_id", "=account__email", "=key_prefix")
    ordering = ("-id",)  # ULIDs: newest first on the primary-key index


# -- read-only lookups with the stored document -----------------------------------------------------------


class DocumentAdmin(ReadOnlyAdmin):
    list_select_related = ("account",)
    search_fields: ClassVar[tuple[str, ...]] = ("=id",)  # subclasses may search more columns
    ordering = ("-id",)
    list_filter: ClassVar[tuple[str, ...]] = ("environment",)  # subclasses add their own columns

    @admin.display(description="stored document")
    def stored_document(self, obj) -> str:
        return pretty_json(obj.document)


class AnsweredDocumentAdmin(DocumentAdmin):
    """A resource whose document is composed on read: shown as its GET answers it (`render`)."""

    render: staticmethod

    @admin.display(description="document (as GET answers it)")
    def document(self, obj) -> str:
        return pretty_json(type(self).render(obj))


def _register_second_half_lookups() -> None:
    @admin.register(CargoScreening)
    class CargoScreeningAdmin(DocumentAdmin):
        list_display = ("id", "account", "environment", "status", "hs_code", "vessel_imo", "screened_at")
        fields = (
            "id", "account", "environment", "status", "hs_code", "origin_country", "destination_country",
            "vessel_imo", "unit_charged", "screened_at", "cargo_document",
        )  # fmt: skip
        readonly_fields = fields

        @admin.display(description="stored document")
        def cargo_document(self, obj: CargoScreening) -> str:
            return pretty_json(cargo_selectors.stored_document(obj))

    @admin.register(Fleet)
    class FleetAdmin(AnsweredDocumentAdmin):
        render = staticmethod(fleet_selectors.fleet_document)
        list_display = ("id", "account", "environment", "name", "hull_count", "updated_at")
        fields = ("id", "account", "environment", "name", "hull_count", "created_at", "updated_at", "document")
        readonly_fields = fields

    @admin.register(MatchDecision)
    class MatchDecisionAdmin(AnsweredDocumentAdmin):
        render = staticmethod(decisions.decision_document)
        list_display = ("id", "account", "environment", "imo", "source", "source_record_id", "outcome", "reviewer",
                        "created_at", "revoked_at")  # fmt: skip
        list_filter = ("environment", "outcome", "source")
        search_fields = ("=id", "=imo", "=source_record_id")
        fields = ("id", "account", "environment", "imo", "outcome", "reviewer", "created_at", "revoked_at", "document")
        readonly_fields = fields

    @admin.register(VesselMonitor)
    class VesselMonitorAdmin(AnsweredDocumentAdmin):
        render = staticmethod(vessel_selectors.monitor_document)
        list_display = ("id", "account", "environment", "imo", "mode", "status", "last_run_at", "next_run_at")
        list_filter = ("environment", "status", "mode")
        fields = ("id", "account", "environment", "imo", "mode", "status", "run_count", "created_at", "document")
        readonly_fields = fields

    @admin.register(CorridorMonitor)
    class CorridorMonitorAdmin(AnsweredDocumentAdmin):
        render = staticmethod(corridor_selectors.monitor_document)
        list_display = ("id", "account", "environment", "created_at")
        fields = ("id", "account", "environment", "created_at", "document")
        readonly_fields = fields

    @admin.register(Export)
    class ExportAdmin(AnsweredDocumentAdmin):
        render = staticmethod(export_selectors.export_document)
        list_display = ("id", "account", "environment", "resource", "format", "status", "row_count", "created_at")
        list_filter = ("environment", "status", "resource")
        fields = ("id", "account", "environment", "resource", "format", "status", "created_at", "document")
        readonly_fields = fields


def _register_lookups() -> None:
    @admin.register(Screening)
    class ScreeningAdmin(DocumentAdmin):
        list_display = ("id", "account", "environment", "imo", "status", "unit_charged", "origin", "screened_at")
        fields = (
            "id",
            "account",
            "environment",
            "imo",
            "status",
            "unit_charged",
            "origin",
            "screened_at",
            "expires_at",
            "superseded_by",
            "stored_document",
        )
        readonly_fields = fields

    @admin.register(VoyageAssessment)
    class VoyageAssessmentAdmin(DocumentAdmin):
        list_display = ("id", "account", "environment", "origin_locode", "dest_locode", "created_at")
        fields = ("id", "account", "environment", "origin_locode", "dest_locode", "created_at", "stored_document")
        readonly_fields = fields

    class BatchAdmin(DocumentAdmin):
        list_display = ("id", "account", "environment", "status", "item_count", "created_at", "completed_at")
        list_filter = ("environment", "status")
        fields = ("id", "account", "environment", "status", "item_count", "created_at", "completed_at", "document")
        readonly_fields = fields

    @admin.register(ScreeningBatch)
    class ScreeningBatchAdmin(BatchAdmin):
        @admin.display(description="document (as GET answers it)")
        def document(self, obj) -> str:
            return pretty_json(screening_batches.batch_document(obj))

    @admin.register(VoyageBatch)
    class VoyageBatchAdmin(BatchAdmin):
        @admin.display(description="document (as GET answers it)")
        def document(self, obj) -> str:
            return pretty_json(voyage_selectors.batch_document(obj))

    _register_second_half_lookups()

    @admin.register(SourceSnapshot)
    class SourceSnapshotAdmin(ReadOnlyAdmin):
        """Source freshness: every load, newest first; refresh from the console or with the action."""

        list_display = (
            "source",
            "edition",
            "status",
            "row_count",
            "published_at",
            "edition_age",
            "stale",
            "retrieved_at",
            "added",
            "removed",
            "is_demo",
            "origin",
        )
        readonly_fields = ("edition_age", "stale")
        list_filter = ("status", "source", "is_demo")
        ordering = ("-retrieved_at",)
        actions = ["refresh"]

        @admin.display(description="age")
        def edition_age(self, obj: SourceSnapshot) -> str:
            age = freshness.edition_age(obj.published_at, timezone.now())
            return freshness.describe_age(age) if age is not None else "publication date unknown"

        @admin.display(description="stale")
        def stale(self, obj: SourceSnapshot) -> str:
            """Only the serving copy can be stale: older than its cadence allows since our last check."""
            if obj.status != SourceSnapshot.Status.ACTIVE:
                return "—"
            edition = freshness.edition_freshness(
                obj.source,
                obj.edition,
                published_at=obj.published_at,
                retrieved_at=obj.retrieved_at,
                is_demo=obj.is_demo,
                now=timezone.now(),
                checks=freshness.last_checks(),
            )
            if edition.stale:
                return f"stale: {edition.stale_sentence()}"
            return "no" if edition.cadence is not None and not obj.is_demo else "—"

        def has_change_permission(self, request, obj=None) -> bool:
            return False

        def get_actions(self, request):
            actions = super().get_actions(request)
            if not request.user.has_perm("metering.change_serviceswitches"):
                actions.pop("refresh", None)
            return actions

        @admin.action(description="Refresh these sources from their official URLs (queued)")
        def refresh(self, request, queryset) -> None:
            pairs = sorted(set(queryset.values_list("source", "edition")))
            for source, edition in pairs:
                services.request_source_refresh(request.user, source, edition)
            messages.success(request, f"Queued {len(pairs)} refresh(es).")


_register_lookups()
