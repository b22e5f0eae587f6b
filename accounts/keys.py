"""API key secrets: minting, keyed hashing under a rotatable pepper, and verification.

A key reads svc_<environment>_<secret>. Only HMAC-SHA256(pepper, secret) and the first
LOOKUP_LENGTH characters of the secret are stored.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from django.conf import settings

LOOKUP_LENGTH = 12
SECRET_LENGTH = 40
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
KEY_SHAPE = re.compile(rf"^svc_(test|live)_([A-Za-z0-9]{{{SECRET_LENGTH}}})$")


@dataclass(frozen=True)
class ParsedKey:
    environment: str
    secret: str

    @property
    def lookup(self) -> str:
        return self.secret[:LOOKUP_LENGTH]


def peppers() -> list[tuple[str, str]]:
    """(id, value) pairs, newest first; the first one hashes new keys."""
    pairs = []
    for entry in settings.API_KEY_PEPPERS:
        pepper_id, _, value = entry.partition(":")
        pairs.append((pepper_id, value))
    return pairs


def hash_secret(secret: str, pepper_id: str | None = None) -> tuple[str, str]:
    available = dict(peppers())
    chosen = pepper_id or peppers()[0][0]
    if chosen not in available:
        raise KeyError(f"pepper {chosen} is no longer configured")
    digest = hmac.new(available[chosen].encode(), secret.encode(), hashlib.sha256).hexdigest()
    return chosen, digest


def mint(environment: str) -> tuple[str, ParsedKey]:
    secret = "".join(secrets.choice(_ALPHABET) for _ in range(SECRET_LENGTH))
    return f"svc_{environment}_{secret}", ParsedKey(environment, secret)


def parse(raw: str) -> ParsedKey | None:
    match = KEY_SHAPE.match(raw)
    if not match:
        return None
    return ParsedKey(environment=match.group(1), secret=match.group(2))


def secret_matches(secret: str, stored_hash: str, pepper_id: str) -> bool:
    try:
        _, digest = hash_secret(secret, pepper_id)
    except KeyError:
        return False
    return hmac.compare_digest(digest, stored_hash)
