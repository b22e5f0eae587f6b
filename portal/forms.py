"""Forms of the sign-up, log-in and key pages (validation only; the writes are in accounts.signup/services)."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import AuthenticationForm

from accounts.models import ALL_SCOPES, ENV_LIVE, ENV_TEST
from accounts.signup import normalise_email, public_inbox_domain

MAX_ALLOWED_IPS = 50
SCOPE_HELP = {
    "vessel:screen": "hull screenings, screening batches, fleets, exports of screening records",
    "vessel:monitor": "vessel monitors, their history and change events",
    "cargo:screen": "cargo screenings and their exports",
    "voyage:score": "voyage assessments (single and batch)",
    "voyage:monitor": "corridor monitors and their history",
    "webhooks:manage": "webhook endpoints, test deliveries, the delivery log",
    "usage:read": "allowances and current consumption",
    "logs:read": "the API access log",
}


class SignupForm(forms.Form):
    email = forms.EmailField(
        label="E-mail address", max_length=150, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )

    def clean_email(self) -> str:
        email = normalise_email(self.cleaned_data["email"])
        listed = public_inbox_domain(email)
        if listed is not None:
            raise forms.ValidationError(
                "%(domain)s is a public throwaway inbox that anyone can read (public_inbox_email). "
                "Use an address at a domain only you or your organisation can read.",
                code="public_inbox_email",
                params={"domain": listed},
            )
        return email

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data  # what forms.Form.clean() returns
        email, password = cleaned.get("email"), cleaned.get("password")
        if email and password:
            # The same rules for every address: validated against an unsaved user, never the stored one.
            probe = get_user_model()(username=email, email=email)
            try:
                password_validation.validate_password(password, probe)
            except forms.ValidationError as exc:
                self.add_error("password", exc)
        return cleaned


class ConfirmForm(forms.Form):
    password = forms.CharField(
        label="The password you chose when signing up",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class EmailLoginForm(AuthenticationForm):
    """Django's log-in form with the e-mail address as the username."""

    username = forms.EmailField(label="E-mail address", widget=forms.EmailInput(attrs={"autofocus": True}))

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": (
            "That e-mail address and password do not match a confirmed account. Not confirmed yet? Use the link in "
            "the mail we sent, or sign up again to receive a new one."
        ),
    }

    def clean_username(self) -> str:
        return normalise_email(self.cleaned_data["username"])


_SEPARATORS = re.compile(r"[\s,;]+")


def parse_allowed_ips(text: str) -> list[str]:
    """Addresses and CIDR ranges, IPv4 or IPv6, separated by commas, spaces or new lines.

    A bare address means that one address (/32 or /128). A range must name its network address:
    203.0.113.7/24 is refused with the range it probably means (203.0.113.0/24), so a typo never
    quietly widens or moves what is allowed. Empty: the key works from any address.
    """
    entries = [part for part in _SEPARATORS.split(text.strip()) if part]
    if len(entries) > MAX_ALLOWED_IPS:
        raise forms.ValidationError(f"At most {MAX_ALLOWED_IPS} addresses or ranges per key.", code="too_many")
    cleaned: list[str] = []
    problems: list[str] = []
    for entry in entries:
        try:
            network = ipaddress.ip_network(entry, strict=True)
        except ValueError:
            try:
                loose = ipaddress.ip_network(entry, strict=False)
            except ValueError:
                problems.append(f"{entry} is not an IPv4/IPv6 address or CIDR range (e.g. 203.0.113.0/24).")
            else:
                problems.append(f"{entry} has host bits set; the range it is in is {loose}.")
            continue
        if str(network) not in cleaned:
            cleaned.append(str(network))
    if problems:
        raise forms.ValidationError(problems, code="invalid_cidr")
    return cleaned


class CreateKeyForm(forms.Form):
    environment = forms.ChoiceField(
        choices=[(ENV_TEST, "Test (svc_test_…): free, for building and trying"), (ENV_LIVE, "Live (svc_live_…)")],
        widget=forms.RadioSelect,
        initial=ENV_TEST,
    )
    label = forms.CharField(label="Label", max_length=100, required=False, help_text="Where the key is used.")
    scopes = forms.MultipleChoiceField(
        choices=[(scope, f"{scope}: {SCOPE_HELP[scope]}") for scope in ALL_SCOPES],
        widget=forms.CheckboxSelectMultiple,
        initial=list(ALL_SCOPES),
        error_messages={"required": "Choose at least one scope (new keys carry all of them by default)."},
    )
    allowed_ips = forms.CharField(
        label="Allowed source addresses (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "203.0.113.0/24, 198.51.100.7, 2001:db8::/32"}),
    )

    def clean_allowed_ips(self) -> list[str]:
        return parse_allowed_ips(self.cleaned_data.get("allowed_ips") or "")
