"""Match decisions: POST/GET /api/v1/match-decisions, GET /{id}, POST /{id}/revoke (screening/decisions.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from core.api.fields import StrictStringField
from core.api.filters import ListFilter, QueryBooleanField, read_body, read_filters
from core.api.openapi import creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from screening import decisions
from screening.api.schema import ImoTextField
from screening.batches import read_imo
from screening.models import MatchDecision
from screening.verdict import SANCTIONS_SOURCES

SCOPE = "vessel:screen"
RESEND = "resend POST /api/v1/match-decisions"
OUTCOMES = MatchDecision.Outcome.values


class _DecisionImoField(ImoTextField):
    """The hull's IMO under POST /screenings' rules (no appended-digit correction; the check digit must hold)."""

    def to_internal_value(self, data: Any) -> str:
        parsed, violation = read_imo(data, correction=False, field="imo", resend=RESEND)
        if violation is not None:
            raise serializers.ValidationError(violation["message"])
        assert parsed is not None
        if not parsed.check_digit_valid:
            raise serializers.ValidationError(f"IMO {parsed.imo} fails its check digit, so it is no hull's; {RESEND}.")
        return parsed.imo


class DecisionInput(StrictInputSerializer):
    imo = _DecisionImoField(help_text="The hull the match was found on (its check digit must hold)")
    # A declared field named like a Field attribute: the serializer metaclass takes it out of the class
    # body, so nothing is overridden; the stubs see a plain class attribute.
    source = serializers.ChoiceField(choices=list(SANCTIONS_SOURCES))  # type: ignore[assignment]
    source_record_id = StrictStringField(
        max_length=100,
        help_text="The match's source_record_id: a record the serving edition of `source` lists and the hull matches "
        "(in this account's screenings of it, or a screening now), else 422",
    )
    outcome = serializers.ChoiceField(
        choices=OUTCOMES, help_text="cleared: not this hull (a false positive); confirmed: this hull is the listed one"
    )
    reason = StrictStringField(max_length=2000, help_text="Why, as the case file should read it")
    reviewer = StrictStringField(max_length=200, help_text="Who decided")
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="When the decision stops applying (in the future, else 422); absent: never",
    )


class RevokeInput(StrictInputSerializer):
    reviewer = StrictStringField(max_length=200, help_text="Who revokes")
    reason = StrictStringField(required=False, max_length=2000, allow_blank=True)


class DecisionFilter(ListFilter):
    imo = serializers.RegexField(r"^\d{7}$", required=False, help_text="7-digit IMO")
    source = serializers.ChoiceField(choices=list(SANCTIONS_SOURCES), required=False)  # type: ignore[assignment]
    outcome = serializers.ChoiceField(choices=OUTCOMES, required=False)
    active = QueryBooleanField(help_text="true: neither revoked nor expired; false: revoked or expired")


class RevocationSchema(serializers.Serializer):
    at = serializers.DateTimeField()
    by = serializers.CharField()
    reason = serializers.CharField(allow_null=True)


class DecidedListingSchema(serializers.Serializer):
    record_type = serializers.ChoiceField(choices=["vessel", "entity"])
    name = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    imo = serializers.CharField(allow_null=True)
    mmsi = serializers.CharField(allow_null=True)
    programs = serializers.ListField(child=serializers.CharField())


class DecisionSchema(serializers.Serializer):
    id = serializers.CharField()
    imo = serializers.CharField()
    source = serializers.CharField()  # type: ignore[assignment]
    source_record_id = serializers.CharField()
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    reason = serializers.CharField()
    reviewer = serializers.CharField()
    decided_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    state = serializers.ChoiceField(
        choices=[str(state) for state in decisions.DecisionState],
        help_text="active: applies to the match; expired; lapsed: the listing changed in a later edition (or left "
        "the list), so the decision no longer applies; revoked",
    )
    record = DecidedListingSchema(help_text="The listing as it stood when decided")
    record_fingerprint = serializers.CharField(help_text="sha256 of the listing's names, identifiers and programmes")
    revoked = RevocationSchema(allow_null=True)


class DecisionListSchema(serializers.Serializer):
    match_decisions = DecisionSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class MatchDecisionCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="record_match_decision",
        summary="Record a reviewer's decision on a match of a hull (cleared or confirmed); later screenings show it",
        request=DecisionInput,
        responses={201: OpenApiResponse(DecisionSchema)},
        error_notes={
            409: "A decision on this match applies already (decision_exists): revoke it first",
            422: "validation_failed, also when the hull has no match on that record",
        },
    )
    @idempotent
    def post(self, request):
        values = read_body(DecisionInput, request.data)
        saved = decisions.record_decision(request.auth, values, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)

    @extend_schema(
        operation_id="list_match_decisions",
        summary="The environment's match decisions, newest first",
        parameters=[DecisionFilter],
        responses={200: DecisionListSchema},
    )
    def get(self, request):
        filters = read_filters(DecisionFilter, request.query_params)
        return json_bytes_response(to_json_bytes(decisions.decision_list(request.auth, filters)))


class MatchDecisionDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(operation_id="get_match_decision", summary="A match decision", responses={200: DecisionSchema})
    def get(self, request, decision_id: str):
        return json_bytes_response(to_json_bytes(decisions.decision_detail(request.auth, decision_id)))


class MatchDecisionRevokeView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="revoke_match_decision",
        summary="Revoke a match decision (who and why are kept; the decision itself is never rewritten)",
        request=RevokeInput,
        responses={200: OpenApiResponse(DecisionSchema)},
        error_notes={409: "The decision is revoked already (decision_revoked)"},
    )
    @idempotent
    def post(self, request, decision_id: str):
        values = read_body(RevokeInput, request.data)
        saved = decisions.revoke_decision(
            request.auth, decision_id, values, in_transaction=claim_of(request).completes(200)
        )
        return json_bytes_response(saved.body)
