"""IMO ship numbers: the check digit (facts in ../shared/data/README.md) and the input rules.

Keyed screenings (contract 4.3) accept exactly `<7 digits>`, `IMO<7 digits>` or
`IMO <7 digits>`; the keyless path (4.1) accepts any path value holding exactly one
7-digit number (a run of exactly seven ASCII digits), whatever else it holds: other
numbers (`IMO 9074729 built 2005`) and words are ignored. Both explain a refusal in words:
no digits, too few, more than one, a run longer than seven, and which reading of an
8-digit value carries a valid check digit.
Only ASCII digits count: other scripts' digits are not an IMO number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WEIGHTS = (7, 6, 5, 4, 3, 2)
_ASCII_DIGIT_RUN = re.compile(r"[0-9]+")
_SCREENING_SHAPE = re.compile(r"(?:IMO ?)?([0-9]{7})", re.IGNORECASE)


def imo_check_digit_valid(imo: str) -> bool:
    """True when a 7-digit ship IMO number's seventh digit matches its checksum."""
    if len(imo) != 7 or not imo.isascii() or not imo.isdigit():
        return False
    total = sum(int(digit) * weight for digit, weight in zip(imo[:6], _WEIGHTS, strict=True))
    return total % 10 == int(imo[6])


class ImoInputError(ValueError):
    """The value holds no usable 7-digit core; str() says what is wrong."""


class InvalidImoPath(ImoInputError):
    """The keyless path segment is not exactly one 7-digit number."""


@dataclass(frozen=True)
class ParsedImo:
    imo: str
    normalized_from: str | None  # the value sent, when the appended-digit correction applied
    check_digit_valid: bool


def valid_readings_of_eight(digits: str) -> list[str]:
    """The 7-digit readings (first seven, last seven) of an 8-digit run that pass the check digit."""
    readings = [digits[:7], digits[1:]]
    return [r for r in dict.fromkeys(readings) if imo_check_digit_valid(r)]


def appended_digit_reading(value: str) -> str | None:
    """The first seven digits when `value` is exactly eight digits that look like one appended digit."""
    if len(value) == 8 and value.isascii() and value.isdigit():
        if imo_check_digit_valid(value[:7]) and not imo_check_digit_valid(value[1:]):
            return value[:7]
    return None


def _explain(value: str) -> str:
    """Why `value` holds no single 7-digit IMO number."""
    runs = _ASCII_DIGIT_RUN.findall(value)
    if not runs:
        if any(ch.isdigit() for ch in value):
            return "the value holds no ASCII digits (0-9); digits of other scripts are not read"
        return "the value holds no digits"
    longest = max(runs, key=len)
    if len(longest) == 8:
        valid = valid_readings_of_eight(longest)
        base = f"'{longest}' has 8 digits; an IMO number has 7"
        if len(valid) == 1:
            return f"{base}, and of its two 7-digit readings only {valid[0]} carries a valid check digit"
        if len(valid) == 2:
            return f"{base}, and both readings ({valid[0]} and {valid[1]}) carry a valid check digit"
        return f"{base}, and neither 7-digit reading carries a valid check digit"
    if len(longest) > 8:
        return f"a run of {len(longest)} digits is longer than seven"
    if sum(1 for run in runs if len(run) == 7) > 1:
        return "the value holds more than one 7-digit number"
    if len(longest) < 7:
        total = sum(len(run) for run in runs)
        noun = "digit" if total == 1 else "digits"
        return f"the value holds {total} {noun} but no run of 7 (too few digits)"
    if len(runs) > 1:
        return "the value holds other digits besides its 7-digit number"
    return "the value holds characters other than the number, 'IMO<number>' or 'IMO <number>'"


def parse_screening_imo(value: str, *, appended_digit_correction: bool = False) -> ParsedImo:
    """The IMO input rules of POST /api/v1/screenings (contract 4.3)."""
    stripped = value.strip()
    shaped = _SCREENING_SHAPE.fullmatch(stripped)
    if shaped:
        imo = shaped.group(1)
        return ParsedImo(imo, None, imo_check_digit_valid(imo))
    if appended_digit_correction:
        corrected = appended_digit_reading(stripped)
        if corrected is not None:
            return ParsedImo(corrected, value, True)
    raise ImoInputError(_explain(stripped))


def parse_keyless_imo(segment: str) -> str:
    """The one 7-digit number of a keyless path value (contract 4.1).

    Only a value with no 7-digit number, or with more than one, is refused."""
    sevens = [run for run in _ASCII_DIGIT_RUN.findall(segment) if len(run) == 7]
    if len(sevens) == 1:
        return sevens[0]
    if len(sevens) > 1:
        raise InvalidImoPath(f"the value holds more than one 7-digit number ({', '.join(sevens)})")
    raise InvalidImoPath(_explain(segment))
