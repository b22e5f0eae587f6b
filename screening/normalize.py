"""Name normalisation shared by the sanctions index, identity and the port catalogue.

Folding is transliteration (anyascii), so ø, å, æ, ß and other letters fold like accented
ones (ø→o, æ→ae, ß→ss); then upper case, punctuation to spaces, whitespace collapsed.
Hull-name prefixes that describe the ship rather than name it (M/V, M.V., MT, TANKER, ...) are dropped,
and a hull's number is written in digits whatever form it came in ("STAR III", "STAR THREE" -> "STAR 3").
"""

from __future__ import annotations

import re
from functools import lru_cache

from anyascii import anyascii

_NON_ALNUM = re.compile(r"[^A-Z0-9]+")
_VESSEL_PREFIXES = frozenset({"MV", "MT", "MS", "SS", "MY", "FV", "TANKER"})
# Legal forms say what a party is, not who: "ORION TRADERS LLC" and "ORION TRADERS" are one name.
_LEGAL_FORMS = frozenset(
    {
        "LLC",
        "LTD",
        "LIMITED",
        "INC",
        "CORP",
        "CORPORATION",
        "CO",
        "COMPANY",
        "SA",
        "SAS",
        "SARL",
        "GMBH",
        "AG",
        "AS",
        "ASA",
        "BV",
        "NV",
        "PLC",
        "SPA",
        "SRL",
        "FZE",
        "FZCO",
        "FZC",
        "JSC",
        "PJSC",
        "OOO",
        "LLP",
        "PTE",
        "PVT",
        "SDN",
        "BHD",
    }
)
# M/V, M.V., M. T. and the like: a type written with a slash or dots, even glued to the name ("M.V.ARIES").
_SLASHED_PREFIX = re.compile(r"^\s*M\s*[/.]\s*[VTSY]\s*\.?(?![A-Z0-9])", re.IGNORECASE)


_NUMBER_WORDS = (
    "ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN ELEVEN TWELVE THIRTEEN FOURTEEN FIFTEEN SIXTEEN "
    "SEVENTEEN EIGHTEEN NINETEEN TWENTY"
).split()
_ROMAN_UNITS = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")


_WORD_NUMBERS = {word: str(value) for value, word in enumerate(_NUMBER_WORDS, start=1)}
_ROMAN_NUMBERS = {"X" * (value // 10) + _ROMAN_UNITS[value % 10]: str(value) for value in range(1, 40)}


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """ASCII upper case, punctuation as single spaces, trimmed."""
    return _NON_ALNUM.sub(" ", anyascii(text).upper()).strip()


def normalize_name(text: str) -> str:
    """A party or port name folded for comparison."""
    return fold(text)


def normalize_vessel_name(text: str) -> str:
    """A listed or hull name folded, without a leading type prefix (M/V, MT, ...) or trailing legal forms, its
    numbers in digits."""
    words = fold(_SLASHED_PREFIX.sub("", text)).split()
    if len(words) > 1 and words[0] in _VESSEL_PREFIXES:
        words = words[1:]
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words = words[:-1]
    if len(words) > 1:
        # A word alone is a name ("TEN", "XI"), not a number; a first word is a roman numeral only in a
        # name, never "I" or "V" opening one.
        words = [
            _WORD_NUMBERS.get(word) or (_ROMAN_NUMBERS.get(word) if at else None) or word
            for at, word in enumerate(words)
        ]
    return " ".join(words)


def compact(text: str) -> str:
    """A folded name without spaces: "Port Said" and "PortSaid" meet here."""
    return fold(text).replace(" ", "")


def tokens(folded: str) -> list[str]:
    return folded.split()
