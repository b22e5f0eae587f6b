"""OpenAPI descriptions of the screening record (documentation; the record is built in services)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.fields import StrictStringField
from screening.name_rules import NameRule
from screening.notices import CODES as NOTICE_CODES
from screening.verdict import Verdict
from screening.vetting import NOMINAL_WEIGHTS

# The IMO input rules of contract 4.3 (screening.imo.parse_screening_imo): seven ASCII digits, also as
# IMO<imo> or 'IMO <imo>' (any case), blanks around it ignored. What a pattern cannot say is judged by
# the server: the check digit (refused where the operation says so) and the per-account appended-digit
# correction (an 8-digit value some accounts may send).
_BLANK = "[^\\S\\x00-\\x1f\\x7f-\\x9f]"  # whitespace that is not a control character
IMO_INPUT_PATTERN = f"^{_BLANK}*(?:[Ii][Mm][Oo] ?)?[0-9]{{7}}{_BLANK}*$"
# The same where the body is read without the control-character rule (any whitespace is trimmed).
IMO_TEXT_PATTERN = "^\\s*(?:[Ii][Mm][Oo] ?)?[0-9]{7}\\s*$"


# What a match's `source` can name (also the MatchSourceEnum entry of SPECTACULAR_SETTINGS).
MATCH_SOURCES = [
    "ofac_sdn",
    "un_sanctions",
    "eu_sanctions",
    "uk_sanctions",
    "opensanctions",
    "ua_war_sanctions",
    "vessel_vetting",
]


class ImoInputField(StrictStringField):
    """An IMO number as POST /api/v1/screenings reads it (control characters refused)."""

    published_pattern = IMO_INPUT_PATTERN


@extend_schema_field({"type": "string", "pattern": IMO_TEXT_PATTERN})
class ImoTextField(serializers.CharField):
    """An IMO number in a body the service parses itself (documentation of fleets and batches)."""


class IdentitySourceSchema(serializers.Serializer):
    register = serializers.CharField()
    named = serializers.BooleanField()
    reachable = serializers.BooleanField()
    name = serializers.CharField(required=False)


class ListEditionSchema(serializers.Serializer):
    published = serializers.DateTimeField(allow_null=True)
    retrieved_at = serializers.DateTimeField(allow_null=True)
    file = serializers.CharField(
        required=False, help_text="eu_sanctions only: eu_fsf, eu_journal_sanctions or eu_sanctions_map"
    )


class MatchDecisionBlockSchema(serializers.Serializer):
    """The account's decision on this match, while it applies (POST /api/v1/match-decisions)."""

    id = serializers.CharField(help_text="The decision (mdc_…)")
    outcome = serializers.ChoiceField(choices=["cleared", "confirmed"])
    reviewer = serializers.CharField()
    decided_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)


class MatchExplanationSchema(serializers.Serializer):
    hull_name = serializers.CharField(
        required=False, help_text="The name of the hull that met the record (name matches only)."
    )
    listed_name = serializers.CharField(help_text="The listed name or a.k.a. it met.")
    basis = serializers.ChoiceField(
        choices=["exact_imo", "exact_mmsi", *[rule.value for rule in NameRule]],
        help_text="exact_imo or exact_mmsi for an identifier match; otherwise the name rule that made the two names "
        "one (screening/name_rules.py, README 'Matching quality').",
    )
    basis_text = serializers.CharField(required=False, help_text="The name rule in words.")
    score = serializers.FloatField(help_text="0-100; 100 for identifier matches.")
    verdict_rule = serializers.CharField(
        help_text="The rule of the contract that decided drove_verdict: 3.1, 3.2.1, 3.2.2, 3.2.3 or 3.2.5 "
        "(cargo parties: 'cargo parties')."
    )
    verdict_reason = serializers.CharField(help_text="That rule, applied to this match, in words.")


class MatchSchema(serializers.Serializer):
    name = serializers.CharField()
    # The DRF stubs read a field named like a Field attribute (source, label) as overriding it; the
    # serializer metaclass pops declared fields out of the class body, so nothing is overridden.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=MATCH_SOURCES,
        help_text="vessel_vetting is listed for compatibility and never appears on a match (deprecated).",
    )
    programs = serializers.ListField(child=serializers.CharField())
    match_type = serializers.ChoiceField(choices=["exact_imo", "exact_mmsi", "name_flag", "name_fuzzy"])
    confidence_class = serializers.ChoiceField(choices=["confirmed", "probable", "possible"])
    record_type = serializers.ChoiceField(choices=["vessel", "entity"])
    drove_verdict = serializers.BooleanField(required=False)
    screened_name = serializers.CharField(required=False)
    source_record_id = serializers.CharField(required=False)
    source_url = serializers.URLField(required=False)
    listed_on = serializers.DateField(allow_null=True)
    list_edition = ListEditionSchema(required=False)
    explanation = MatchExplanationSchema(
        required=False,
        help_text="Why this record matched and whether it drove the verdict (records stored from 2026-11-28).",
    )
    decision = MatchDecisionBlockSchema(
        required=False,
        help_text="Present when a decision of this account applies to the match: not revoked, not expired, and "
        "the listing unchanged since it was decided. A decision never changes the verdict.",
    )


class SanctionsSchema(serializers.Serializer):
    status = serializers.ChoiceField(choices=Verdict.values)
    detail = serializers.CharField()
    coverage_complete = serializers.BooleanField()
    coverage_gaps = serializers.ListField(child=serializers.CharField())
    matches = MatchSchema(many=True)
    retry_after = serializers.DateTimeField(allow_null=True)
    review = serializers.ChoiceField(
        choices=["none", "partly_cleared", "all_cleared", "confirmed"],
        required=False,
        help_text="The account's decisions on the matches, summed up: confirmed (a match is confirmed), all_cleared "
        "(every match that drove the verdict is cleared), partly_cleared (some match is cleared), none. The status "
        "stays the engine's. Records stored before 2026-11-26 lack it.",
    )


class OwnershipFactorSchema(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # declared field: see MatchSchema.source
    points = serializers.IntegerField()


class OwnershipSchema(serializers.Serializer):
    opacity = serializers.ChoiceField(choices=["LOW", "MEDIUM", "HIGH"], allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    factors = OwnershipFactorSchema(many=True, allow_null=True, required=False)


class VettingFactorSchema(serializers.Serializer):
    # The names responses carry, in their order (screening.vetting.NOMINAL_WEIGHTS).
    name = serializers.ChoiceField(choices=list(NOMINAL_WEIGHTS))
    observed = serializers.BooleanField()
    weight_pct = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)


class ScoreFloorSchema(serializers.Serializer):
    basis = serializers.ChoiceField(choices=["confirmed_sanctions_match", "watchlist_exact_imo"])
    value = serializers.IntegerField()
    weighted_score = serializers.IntegerField(allow_null=True)


class VettingSchema(serializers.Serializer):
    assessed = serializers.BooleanField()
    grade = serializers.ChoiceField(choices=["A", "B", "C", "D", "E"], allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(
        choices=["acceptable", "marginal", "substandard", "unacceptable", "not_assessed", "not_requested"]
    )
    detention_count = serializers.IntegerField()
    vessel_age = serializers.IntegerField(allow_null=True)
    factors = VettingFactorSchema(many=True)
    score_floor = ScoreFloorSchema(required=False)


class SourceRowSchema(serializers.Serializer):
    source = serializers.CharField()  # type: ignore[assignment]  # declared field: see MatchSchema.source
    status = serializers.ChoiceField(choices=["ok", "error", "not_requested"])
    checked_at = serializers.DateTimeField(allow_null=True)
    basis = serializers.ChoiceField(
        choices=["published_at", "refreshed_at", "latest_event_at", "build_constant", "unknown"]
    )
    message = serializers.CharField(required=False)


class NoticeSchema(serializers.Serializer):
    code = serializers.ChoiceField(choices=list(NOTICE_CODES))
    message = serializers.CharField()
    remedy = serializers.CharField()
    docs = serializers.URLField(help_text="The notice's entry in the Notices section of the reference page.")


class ResolutionSchema(serializers.Serializer):
    status = serializers.ChoiceField(choices=["pending", "resolved", "unresolved"])
    cause = serializers.ChoiceField(choices=["identity", "coverage"])
    attempts = serializers.IntegerField()
    max_attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    resolved_screening_id = serializers.CharField(allow_null=True)
    webhook_event = serializers.CharField()


class EvidenceEditionSchema(serializers.Serializer):
    # A declared field named like a Field attribute: see MatchSchema.source.
    source = serializers.CharField()  # type: ignore[assignment]
    edition = serializers.CharField(allow_null=True)
    snapshot_id = serializers.CharField()
    published = serializers.DateTimeField(allow_null=True, help_text="What the publisher stamps; null when unknown")
    retrieved_at = serializers.DateTimeField()
    file_sha256 = serializers.CharField(allow_null=True, help_text="sha256 of the file set as loaded")
    record_count = serializers.IntegerField()
    demo = serializers.BooleanField()


class ScreeningBehaviourSchema(serializers.Serializer):
    """The AIS behaviour block (include_behaviour: true); the events as GET /vessels/{imo}/behaviour gives them."""

    window_days = serializers.IntegerField(help_text="90: the days before screened_at (or as_of) read")
    # `from` is a Python keyword: declared below.
    to = serializers.DateTimeField()
    observed = serializers.BooleanField(
        help_text="false: no AIS position of the hull's MMSIs is held for the window; zero counts then say nothing"
    )
    mmsis = serializers.ListField(child=serializers.CharField(), help_text="The MMSIs linked to the hull")
    last_position_at = serializers.DateTimeField(allow_null=True)
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Events by kind, zeros included")
    highest_severity = serializers.ChoiceField(choices=["info", "low", "medium", "high"], allow_null=True)
    strongest = serializers.ListField(
        child=serializers.DictField(), help_text="Up to three events above info, strongest first, with evidence"
    )
    report = serializers.CharField(help_text="The behaviour report of the same window (GET, free)")


ScreeningBehaviourSchema._declared_fields["from"] = serializers.DateTimeField()


class ScreeningRecordSchema(serializers.Serializer):
    id = serializers.CharField()
    imo = serializers.CharField()
    imo_normalized_from = serializers.CharField(required=False)
    imo_check_digit_valid = serializers.BooleanField()
    vessel_name = serializers.CharField(allow_null=True)
    identity_basis = serializers.ChoiceField(choices=["sources", "user", "none"])
    identity_sources = IdentitySourceSchema(many=True)
    sanctions = SanctionsSchema()
    ownership = OwnershipSchema()
    vetting = VettingSchema()
    sources = SourceRowSchema(many=True)
    behaviour = ScreeningBehaviourSchema(
        required=False,
        help_text="Present when include_behaviour was true: what the hull's AIS showed over the 90 days before "
        "the screening. An extension: it never changes sanctions.status or the vetting grade.",
    )
    customer_reference = serializers.CharField(required=False)
    screened_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    methodology_version = serializers.CharField()
    engine_version = serializers.IntegerField(required=False)
    unit_charged = serializers.BooleanField(required=False)
    notices = NoticeSchema(many=True, required=False)
    resolution = ResolutionSchema(required=False)
    supersedes = serializers.CharField(required=False)
    superseded_by = serializers.CharField(allow_null=True, required=False)
    as_of = serializers.DateTimeField(
        required=False,
        help_text="Present when the hull was screened against the lists in force at this past instant (as_of sent)",
    )
    as_of_editions = EvidenceEditionSchema(
        many=True, required=False, help_text="The sanctions list editions in force at as_of that the record read"
    )


class ScreeningListSchema(serializers.Serializer):
    screenings = ScreeningRecordSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class EvidencePackSchema(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["screening_evidence"])
    pack_version = serializers.IntegerField()
    generated_at = serializers.DateTimeField()
    screening_id = serializers.CharField()
    imo = serializers.CharField()
    screened_at = serializers.DateTimeField()
    record = ScreeningRecordSchema(help_text="The record exactly as issued")
    record_sha256 = serializers.CharField(help_text="sha256 of the record's stored bytes")
    superseded_by = serializers.CharField(allow_null=True)
    list_editions = EvidenceEditionSchema(many=True, help_text="Every source file's copy in force at screened_at")
    engine_version = serializers.IntegerField()
    methodology_version = serializers.CharField()
    thresholds = serializers.DictField(child=serializers.FloatField(), help_text="The matching rules in force")
    decisions = serializers.ListField(
        child=serializers.DictField(), help_text="The decisions the record shows, as GET /api/v1/match-decisions/{id}"
    )
    sha256 = serializers.CharField(help_text="sha256 of the pack's canonical JSON without this field")
