"""The cargo screening request (validated here) and the published shape of the record.

Every choice below is published in the OpenAPI document (field help texts and the operation
description) and in the README, "Cargo screenings".
"""

from __future__ import annotations

import re
from typing import Any

import pycountry
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cargo import export_controls
from cargo.screening import MAX_PARTIES, PARTS, PARTY_ROLES, CargoRequest, PartyInput, VesselInput
from cargo.screening import folded_party_name as _folded_party_name
from core.api.fields import StrictStringField
from core.api.strict_input import StrictInputSerializer
from screening.api.schema import ImoInputField, MatchSchema, SourceRowSchema
from screening.imo import ImoInputError, parse_screening_imo
from screening.verdict import Verdict
from voyages.ports import Port, get_catalogue
from voyages.requests import LOCODE_SHAPE, PORTS_HINT

# Published as they are checked (ASCII digits only, matched as a whole: no trailing newline).
HS_CODE = re.compile(r"[0-9]{2}(?:[0-9]{2}(?:[0-9]{2})?)?")
# Chapters 01 to 97 but 77 (reserved), then an optional heading and subheading.
HS_CODE_PUBLISHED = "^(?:0[1-9]|[1-6][0-9]|7[0-68-9]|8[0-9]|9[0-7])(?:[0-9]{2}(?:[0-9]{2})?)?$"
COUNTRY_SHAPE = re.compile(r"[A-Z]{2}")
COUNTRY_CODES = sorted(country.alpha_2 for country in pycountry.countries)
# A party name must hold a letter or digit (any script): no underscore, no non-word character.
PARTY_NAME_LETTER = re.compile(r"[^\W_]")

OPERATION_DESCRIPTION = f"""
Screen one cargo: its parties against the sanctions lists, its countries and ports against country
sanctions regimes, its HS code against export-control categories, and (when `vessel.imo` is sent)
its vessel through a hull screening.

**Verdict** (`status`, same meanings as a hull screening): RED stop; AMBER possible finding needing
review; GREEN nothing found (`coverage_complete` false: a supplementary list was missing, not a clean
pass); INCOMPLETE no clear verdict (a core sanctions list is missing so parties cannot be cleared, or
the vessel screening is INCOMPLETE). RED stands whatever else is missing; then INCOMPLETE; then AMBER.
`drivers` name each part that is not clear (`part`: {", ".join(PARTS)}), worst first, with the request
`field` it concerns; `sets_verdict` marks those at the verdict's level.

- **party**: each name is folded as hull names are (transliteration, case, punctuation, trailing legal
  forms such as LLC or LIMITED) and compared with the company and person records of every sanctions
  list through the same index, at the company threshold (92; names under five letters only exactly).
  The listed name (or alias) itself on a designating list (OFAC, UN, EU, UK): RED (`match_type`
  name_exact, `confidence_class` confirmed). A near name, or a name on the aggregated dataset or a
  watchlist: AMBER. Unlike a hull screening, a company or person record drives the verdict here.
- **country** (`origin_country`, `destination_country`) and **port** (`load_port`, `discharge_port`):
  comprehensive regime RED, sectoral regime AMBER, from the country regime table voyage assessments use
  (a port in a region with its own regime — Crimea, the occupied oblasts of Ukraine — is read by it).
- **commodity**: the HS code's chapter (and heading) against the export-control categories
  ({", ".join(c.key for c in export_controls.CATEGORIES)}) for the countries on each side of the route
  (`to`: destination and discharge port; `from`: origin and load port). A measure covering the whole
  chapter (arms under a country-wide embargo): RED; one covering part of it: AMBER (check the full code
  against the measure's annex). Each category and measure names its legal source.
- **vessel**: the hull screening's status (GREEN sets nothing). The hull record is stored like any
  screening (`vessel.screening_id`, readable at GET /api/v1/screenings/{{id}}); an INCOMPLETE hull is
  not enrolled for automatic re-screening: re-screen the cargo with `vessel.vessel_name`.

**Charging**: one unit of the screening allowance per cargo screening that reaches a verdict, the
embedded vessel screening included (when the hull verdict is charged, that is the unit); an INCOMPLETE
costs nothing; a replay is free. X-Service-Quota-* headers describe the screening allowance. A cargo
screening holds one of the account's six in-flight screening slots.
"""


# -- request -------------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "enum": COUNTRY_CODES, "examples": ["NL"]})
class CountryCodeField(StrictStringField):
    """An ISO 3166-1 alpha-2 code, upper case (e.g. NL)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not COUNTRY_SHAPE.fullmatch(value) or pycountry.countries.get(alpha_2=value) is None:
            upper = value.strip().upper()
            hint = (
                f" (did you mean {upper}?)"
                if COUNTRY_SHAPE.fullmatch(upper) and pycountry.countries.get(alpha_2=upper)
                else ""
            )
            raise serializers.ValidationError(
                f"{value!r} is not an ISO 3166-1 alpha-2 country code{hint}; send two upper-case letters such as NL"
            )
        return value


@extend_schema_field({"type": "string", "pattern": "^[A-Z]{2}[A-Z2-9]{3}$", "examples": ["NLRTM"]})
class LocodeField(StrictStringField):
    """An uppercase 5-character UN/LOCODE of a port the service carries; validated to the catalogue's port."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not LOCODE_SHAPE.match(value):
            hint = f" (did you mean {value.upper()}?)" if LOCODE_SHAPE.match(value.upper()) else ""
            raise serializers.ValidationError(
                f"{value!r} is not an uppercase 5-character UN/LOCODE{hint}; port names are not accepted — {PORTS_HINT}"
            )
        port = get_catalogue().get_port(value)
        if port is None:
            raise serializers.ValidationError(f"{value} is not a port this service carries; {PORTS_HINT}")
        return port


@extend_schema_field({"type": "string", "pattern": HS_CODE_PUBLISHED, "examples": ["8471"]})
class HsCodeField(StrictStringField):
    """Validated by CommodityInput.validate_hs_code; the pattern admits no control character."""

    published_pattern = HS_CODE_PUBLISHED


class CommodityInput(StrictInputSerializer):
    hs_code = HsCodeField(
        help_text="Harmonized System code: 2 digits (chapter), 4 (heading) or 6 (subheading), digits only, "
        "e.g. 84, 8471 or 847130. Chapters 01-97 (77 is reserved and refused). Headings are not checked "
        "against the nomenclature."
    )
    description = StrictStringField(max_length=500, help_text="What the goods are, as on the shipping documents.")

    def validate_hs_code(self, value: str) -> str:
        if not HS_CODE.fullmatch(value):
            digits = re.sub(r"[\s.]", "", value)
            hint = f" (did you mean {digits}?)" if HS_CODE.fullmatch(digits) else ""
            raise serializers.ValidationError(
                f"{value!r} is not an HS code{hint}: send 2, 4 or 6 digits (chapter, heading or subheading), e.g. 8471"
            )
        chapter = int(value[:2])
        if not 1 <= chapter <= 97 or chapter == 77:
            raise serializers.ValidationError(
                f"HS chapter {value[:2]} does not exist: chapters run 01 to 97 (77 is reserved); send the code "
                "from the goods' tariff classification"
            )
        return value


class _IndexedListSerializer(serializers.ListSerializer):
    """Item errors as a list (parties[1].role), not DRF's index-keyed dict (which would read parties.1.role)."""

    def to_internal_value(self, data):
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as exc:
            detail = exc.detail
            if isinstance(detail, dict) and detail and all(isinstance(index, int) for index in detail):
                raise serializers.ValidationError([detail.get(i, {}) for i in range(max(detail) + 1)]) from None
            raise


@extend_schema_field(
    {
        "type": "string",
        "maxLength": 200,
        "pattern": PARTY_NAME_LETTER.pattern,
        "allOf": [{"pattern": StrictStringField.published_pattern}],
    }
)
class PartyNameField(StrictStringField):
    """Validated by PartyInputSchema.validate_name (control characters refused as on any StrictStringField)."""


class PartyInputSchema(StrictInputSerializer):
    class Meta:
        list_serializer_class = _IndexedListSerializer

    name = PartyNameField(
        max_length=200,
        help_text="The party's name as on the documents (company or person): at least one letter or digit, of any "
        "script. A name that folds to nothing to screen (a hull prefix such as M/V alone) is validation_failed on "
        "parties[i].name.",
    )
    role = serializers.ChoiceField(choices=list(PARTY_ROLES))

    def validate_name(self, value: str) -> str:
        if not PARTY_NAME_LETTER.search(value) or not _folded_party_name(value):
            raise serializers.ValidationError("the name holds no letter or digit to screen; send the party's name")
        return value


class VesselInputSchema(StrictInputSerializer):
    imo = ImoInputField(
        max_length=64,
        trim_whitespace=False,
        help_text="7 digits, also as IMO<imo> or 'IMO <imo>' (the appended-digit correction does not apply). "
        "An IMO failing its check digit is screened as a bare identifier and comes back INCOMPLETE.",
    )
    vessel_name = StrictStringField(
        required=False, max_length=200, help_text="The hull's name; used only when no register names it."
    )

    def validate_imo(self, value: str) -> dict:
        try:
            parsed = parse_screening_imo(value, appended_digit_correction=False)
        except ImoInputError as exc:
            raise serializers.ValidationError(
                f"{exc}; send the hull's 7-digit IMO number (e.g. 9074729) or leave vessel out"
            ) from None
        return {"imo": parsed.imo, "check_digit_valid": parsed.check_digit_valid}


class _CargoScreeningInputExtension(OpenApiSerializerExtension):
    """parties is a list serializer, whose bounds drf-spectacular does not publish."""

    target_class = "cargo.api.schema.CargoScreeningInput"

    def map_serializer(self, auto_schema: Any, direction: str) -> dict:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["properties"]["parties"].update(minItems=1, maxItems=MAX_PARTIES)
        return schema


class CargoScreeningInput(StrictInputSerializer):
    """A cargo to screen. A field not listed is refused (422 validation_failed naming it)."""

    customer_reference = StrictStringField(required=False, max_length=200, allow_blank=True)
    commodity = CommodityInput()
    origin_country = CountryCodeField(help_text="ISO 3166-1 alpha-2 code of the country the goods come from.")
    destination_country = CountryCodeField(help_text="ISO 3166-1 alpha-2 code of the country the goods go to.")
    load_port = LocodeField(
        required=False, allow_null=True, help_text="UN/LOCODE of the load port (GET /api/v1/ports finds it)."
    )
    discharge_port = LocodeField(
        required=False, allow_null=True, help_text="UN/LOCODE of the discharge port (GET /api/v1/ports finds it)."
    )
    # many=True hands max_length (like allow_empty) to the ListSerializer it builds (DRF >= 3.15); the DRF
    # stubs list max_length only on ListSerializer, not on the many=True constructor.
    parties = PartyInputSchema(  # type: ignore[call-arg]
        many=True,
        allow_empty=False,
        max_length=MAX_PARTIES,
        help_text=f"1 to {MAX_PARTIES} parties, each a name and a role ({', '.join(PARTY_ROLES)}).",
    )
    vessel = VesselInputSchema(
        required=False, allow_null=True, help_text="Optional: the carrying vessel, screened as a hull."
    )


def cargo_request(validated: dict) -> CargoRequest:
    """The engine's request from CargoScreeningInput's validated data."""
    vessel = validated.get("vessel")
    load: Port | None = validated.get("load_port")
    discharge: Port | None = validated.get("discharge_port")
    return CargoRequest(
        hs_code=validated["commodity"]["hs_code"],
        description=validated["commodity"]["description"],
        origin_country=validated["origin_country"],
        destination_country=validated["destination_country"],
        parties=tuple(PartyInput(p["name"], p["role"]) for p in validated["parties"]),
        load_port=load,
        discharge_port=discharge,
        vessel=VesselInput(
            imo=vessel["imo"]["imo"],
            check_digit_valid=vessel["imo"]["check_digit_valid"],
            vessel_name=vessel.get("vessel_name"),
        )
        if vessel
        else None,
        customer_reference=validated.get("customer_reference"),
    )


# -- the record ----------------------------------------------------------------------------------


class CargoRegimeSchema(serializers.Serializer):
    is_sanctioned = serializers.BooleanField()
    kind = serializers.ChoiceField(choices=["comprehensive", "sectoral"], allow_null=True)
    regimes = serializers.ListField(child=serializers.CharField(), help_text="The programmes that apply, by name.")


class CargoCountrySchema(serializers.Serializer):
    country_code = serializers.CharField()
    country_name = serializers.CharField()
    status = serializers.ChoiceField(choices=[Verdict.GREEN, Verdict.AMBER, Verdict.RED])
    sanctions = CargoRegimeSchema()


class CargoPortSchema(serializers.Serializer):
    locode = serializers.CharField()
    name = serializers.CharField()
    country_code = serializers.CharField()
    region = serializers.CharField(
        allow_null=True, help_text="The region whose own regime applies to the port (e.g. Crimea), else null."
    )
    status = serializers.ChoiceField(choices=[Verdict.GREEN, Verdict.AMBER, Verdict.RED])
    sanctions = CargoRegimeSchema()


class CargoExportControlSchema(serializers.Serializer):
    category = serializers.ChoiceField(choices=[c.key for c in export_controls.CATEGORIES])
    # A declared field named like Field.label: the serializer metaclass pops it out of the class body, so
    # nothing is overridden, but the DRF stubs read it as replacing the str attribute.
    label = serializers.CharField()  # type: ignore[assignment]
    country_code = serializers.CharField()
    direction = serializers.ChoiceField(
        choices=[export_controls.TO, export_controls.FROM, export_controls.EITHER],
        help_text="to: goods going to the country; from: goods coming from it; either: both.",
    )
    severity = serializers.ChoiceField(
        choices=[export_controls.PROHIBITED, export_controls.RESTRICTED],
        help_text="prohibited: the whole chapter or heading (RED); restricted: part of it, check the annex (AMBER).",
    )
    regime = serializers.CharField(help_text="The legal instrument (source of the fact).")
    field = serializers.CharField(help_text="The request field whose country met the measure.")


class CargoCommoditySchema(serializers.Serializer):
    hs_code = serializers.CharField()
    hs_chapter = serializers.CharField()
    description = serializers.CharField()
    status = serializers.ChoiceField(choices=[Verdict.GREEN, Verdict.AMBER, Verdict.RED])
    categories = serializers.ListField(
        child=serializers.CharField(),
        help_text="Every export-control category (the values of export_controls[].category) the code falls in, "
        "whatever the route.",
    )
    export_controls = CargoExportControlSchema(many=True, help_text="The measures this commodity meets on this route.")


class CargoPartyMatchSchema(MatchSchema):
    match_type = serializers.ChoiceField(
        choices=["name_exact", "name_fuzzy"],
        help_text="name_exact: the listed name or alias itself after folding; name_fuzzy: similarity 92 or more.",
    )
    confidence_class = serializers.ChoiceField(
        choices=["confirmed", "probable", "possible"],
        help_text="confirmed: name_exact on a designating list (RED); probable: name_exact elsewhere; "
        "possible: name_fuzzy.",
    )
    record_type = serializers.ChoiceField(choices=["entity"])
    drove_verdict = serializers.BooleanField(
        required=False,
        help_text="true on the matches that set this party's status; absent when such a record has no stable id.",
    )


class CargoPartySchema(serializers.Serializer):
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=list(PARTY_ROLES))
    status = serializers.ChoiceField(choices=[Verdict.GREEN, Verdict.AMBER, Verdict.RED])
    matches = CargoPartyMatchSchema(many=True)


class CargoVesselSchema(serializers.Serializer):
    imo = serializers.CharField()
    screening_id = serializers.CharField(help_text="The hull screening record (GET /api/v1/screenings/{id}).")
    status = serializers.ChoiceField(choices=Verdict.values)
    vessel_name = serializers.CharField(allow_null=True)
    identity_basis = serializers.ChoiceField(choices=["sources", "user", "none"])
    detail = serializers.CharField()
    coverage_complete = serializers.BooleanField()


class CargoDriverSchema(serializers.Serializer):
    part = serializers.ChoiceField(choices=list(PARTS))
    field = serializers.CharField(
        help_text="The request field the finding concerns: parties[i] (or parties for a coverage gap), "
        "origin_country, destination_country, load_port, discharge_port, commodity.hs_code, vessel.imo."
    )
    status = serializers.ChoiceField(choices=[Verdict.RED, Verdict.AMBER, Verdict.INCOMPLETE])
    summary = serializers.CharField(help_text="Prose; not a stable contract to parse.")
    sets_verdict = serializers.BooleanField(help_text="true when this finding is at the verdict's level.")


class CargoScreeningSchema(serializers.Serializer):
    """A cargo screening record: stored as issued and returned byte-for-byte by GET."""

    id = serializers.CharField(help_text="cgs_…")
    customer_reference = serializers.CharField(required=False)
    status = serializers.ChoiceField(choices=Verdict.values)
    detail = serializers.CharField(help_text="Prose; not a stable contract to parse.")
    coverage_complete = serializers.BooleanField()
    coverage_gaps = serializers.ListField(child=serializers.CharField())
    drivers = CargoDriverSchema(many=True)
    commodity = CargoCommoditySchema()
    origin_country = CargoCountrySchema()
    destination_country = CargoCountrySchema()
    load_port = CargoPortSchema(allow_null=True)
    discharge_port = CargoPortSchema(allow_null=True)
    parties = CargoPartySchema(many=True)
    vessel = CargoVesselSchema(allow_null=True)
    sources = SourceRowSchema(many=True)
    screened_at = serializers.DateTimeField()
    methodology_version = serializers.CharField(help_text="cargo_screening_external_v1")
    unit_charged = serializers.BooleanField(
        help_text="One screening unit, the embedded vessel screening included; false on an INCOMPLETE."
    )
    disclaimer = serializers.CharField()


class CargoScreeningListSchema(serializers.Serializer):
    cargo_screenings = CargoScreeningSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)
