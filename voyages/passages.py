"""Named passages of the sea-lane network, and which are closed by default.

Closures are data: a corridor monitor or an operator can route around Suez or Bab-el-Mandeb
by closing them, and the same network answers. Names are the `passage` tags of the
searoute marine network.
"""

from __future__ import annotations

PASSAGES: dict[str, str] = {
    "suez": "Suez Canal",
    "panama": "Panama Canal",
    "babalmandab": "Bab-el-Mandeb Strait",
    "ormuz": "Strait of Hormuz",
    "malacca": "Strait of Malacca",
    "sunda": "Sunda Strait",
    "gibraltar": "Strait of Gibraltar",
    "bosporus": "Bosphorus",
    "dardanelles": "Dardanelles",
    "bering": "Bering Strait",
    "chili": "Chilean inside passages (Strait of Magellan)",
    "south_africa": "Cape of Good Hope coastal lane",
    "northwest": "Northwest Passage",
}

# Closed unless a caller opens them: the Northwest Passage is ice-bound for most of the year
# and no commercial schedule uses it.
DEFAULT_CLOSED: frozenset[str] = frozenset({"northwest"})


def normalise_closures(closed: frozenset[str] | set[str] | list[str] | tuple[str, ...] | None) -> frozenset[str]:
    """The closure set to route with: the default when None, else the names given (unknown names refused)."""
    if closed is None:
        return DEFAULT_CLOSED
    unknown = sorted(set(closed) - set(PASSAGES))
    if unknown:
        raise ValueError(f"unknown passage(s): {', '.join(unknown)}; known: {', '.join(sorted(PASSAGES))}")
    return frozenset(closed)
