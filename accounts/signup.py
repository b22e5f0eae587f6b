"""Self-serve sign-up: throwaway-domain refusal, confirmation links, and the writes behind the pages.

A browser login is a django.contrib.auth User whose username is the e-mail address (lower case);
the API account (accounts.Account) is opened, or linked when an operator opened one for the same
address, only when the address is confirmed, and gets the allowances of its opening date.

Nothing here tells whether an address already has an account: `request_signup` answers the same
way (a mail to the address) whether it is new, waiting for confirmation or already confirmed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import Account

if TYPE_CHECKING:
    from django.contrib.auth.models import User  # the login model (AUTH_USER_MODEL is not swapped)

CONFIRM_SALT = "accounts.signup.confirm"
# A confirmation link works for two days (SIGNUP_LINK_MAX_AGE_SECONDS overrides it).
DEFAULT_LINK_MAX_AGE_SECONDS = 2 * 24 * 3600

# Rates (metering.ratelimit specs): sign-up and password-reset requests per address and per client
# address, and password attempts (log in, confirm) per address and per client address.
SIGNUP_PER_EMAIL = "5/hour"
SIGNUP_PER_IP = "20/hour"
LOGIN_PER_EMAIL = "10/hour"
LOGIN_PER_IP = "60/hour"


# -- public throwaway inboxes -------------------------------------------------------------------


@cache
def _disposable_lists() -> tuple[frozenset[str], frozenset[str]]:
    """The maintained list from the `disposable-email-domains` package (loaded on first use)."""
    from disposable_email_domains import allowlist, blocklist

    return frozenset(blocklist), frozenset(allowlist)


def email_domain(email: str) -> str:
    return email.rpartition("@")[2].strip().rstrip(".").lower()


def public_inbox_domain(email: str) -> str | None:
    """The listed throwaway domain the address is at (itself or a parent domain), or None.

    `x.mailinator.com` is refused because `mailinator.com` is listed; a domain on the package's
    allowlist is never refused.
    """
    blocklist, allowlist = _disposable_lists()
    domain = email_domain(email)
    if not domain or domain in allowlist:
        return None
    labels = domain.split(".")
    for start in range(len(labels) - 1):  # every parent down to the registrable part, never a bare TLD
        candidate = ".".join(labels[start:])
        if candidate in blocklist:
            return candidate
    return None


def normalise_email(email: str) -> str:
    return email.strip().lower()


# -- confirmation links ---------------------------------------------------------------------------


def _fingerprint(user: AbstractBaseUser) -> str:
    """Changes when the password does (a newer sign-up for the address replaces older links)."""
    return salted_hmac(CONFIRM_SALT, f"{user.pk}:{user.password}").hexdigest()[:20]


def confirmation_token(user: AbstractBaseUser) -> str:
    return signing.dumps({"u": user.pk, "f": _fingerprint(user)}, salt=CONFIRM_SALT)


def link_max_age() -> int:
    return int(getattr(settings, "SIGNUP_LINK_MAX_AGE_SECONDS", DEFAULT_LINK_MAX_AGE_SECONDS))


class LinkProblem(Exception):
    """A confirmation link that cannot be used; the message is for the page."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def user_for_token(token: str) -> User:
    """The user a confirmation link is for, or LinkProblem (expired, used, replaced, broken)."""
    try:
        payload = signing.loads(token, salt=CONFIRM_SALT, max_age=link_max_age())
    except signing.SignatureExpired:
        raise LinkProblem(
            "link_expired",
            "This confirmation link has expired (links work for two days). Sign up again with the same address "
            "to receive a new one.",
        ) from None
    except signing.BadSignature:
        raise LinkProblem(
            "link_invalid", "This confirmation link is not valid. Copy the whole link from the mail, or sign up again."
        ) from None
    user = get_user_model().objects.filter(pk=payload.get("u")).first()
    if user is None:
        raise LinkProblem("link_invalid", "This confirmation link is not valid. Sign up again to receive a new one.")
    if user.is_active:
        raise LinkProblem("link_used", "This address is already confirmed: the link has been used. Log in instead.")
    if payload.get("f") != _fingerprint(user):
        raise LinkProblem(
            "link_replaced",
            "A newer confirmation mail was sent for this address; use the link in the newest mail.",
        )
    return user


# -- writes ---------------------------------------------------------------------------------------


def _mail(to: str, template: str, context: dict) -> None:
    context = {"base_url": settings.PUBLIC_BASE_URL, **context}
    subject = render_to_string(f"accounts/mail/{template}_subject.txt", context).strip()
    body = render_to_string(f"accounts/mail/{template}.txt", context)
    send_mail(subject, body, None, [to], fail_silently=False)


@dataclass(frozen=True)
class SignupOutcome:
    """What happened (for tests and logs only: the page shows the same answer for every outcome)."""

    kind: str  # "new" | "resent" | "already_registered"


def request_signup(email: str, password: str) -> SignupOutcome:
    """Create (or refresh) the unconfirmed login and mail the address; one transaction with the mail.

    A mail that cannot be sent rolls everything back (nothing half-created). An already confirmed
    address gets a mail saying so (with the log-in and password-reset links) and its password is
    left alone, so the page cannot tell the two apart.
    """
    email = normalise_email(email)
    users = get_user_model().objects
    with transaction.atomic():
        user = users.select_for_update().filter(username=email).first()
        if user is not None and user.is_active:
            _mail(email, "already_registered", {"email": email})
            return SignupOutcome("already_registered")
        kind = "resent" if user is not None else "new"
        if user is None:
            user = users.model(username=email, email=email, is_active=False)
        user.set_password(password)
        user.save()
        _mail(email, "confirm", {"email": email, "token": confirmation_token(user), "hours": link_max_age() // 3600})
        return SignupOutcome(kind)


def opening_date() -> date:
    """The account's opening date (UTC): the day its address is confirmed."""
    return timezone.now().date()


def confirm_signup(user: User) -> Account:
    """Activate the login and open its account (or link the account an operator opened for the address)."""
    with transaction.atomic():
        user = type(user).objects.select_for_update().get(pk=user.pk)
        user.is_active = True
        user.save(update_fields=["is_active"])
        account = Account.objects.select_for_update().filter(email=user.email).first()
        if account is None:
            account = Account.objects.create(email=user.email, opened_on=opening_date(), user=user)
        elif account.user_id is None:
            account.user = user
            account.save(update_fields=["user"])
        return account


def request_hash(value: str) -> str:
    """Rate-window identifier for an address (the address itself never sits in a cache key)."""
    return hashlib.sha256(value.encode()).hexdigest()[:32]
