"""Issue 17 item 1: sign-up with e-mail and password, confirmation by an e-mail link, log in/out, password reset.

Mail goes through Django's file backend into a temporary folder (as on the embedded default, under var/mail).
The helpers at the top are shared with the key-page and allowance tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from smtplib import SMTPException

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import signup
from accounts.models import Account, ApiKey

pytestmark = pytest.mark.django_db

PASSWORD = "harbour-Pilot-2026!"
LINK = re.compile(r"(https?://\S+/signup/confirm/\S+)")
RESET_LINK = re.compile(r"(https?://\S+/password-reset/\S+/\S+)")


# -- helpers shared with the other sign-up test files ---------------------------------------------------


@pytest.fixture(autouse=True)
def mail_dir(settings, tmp_path):
    """Mail to files, as the embedded default does (var/mail), in a folder of this test's own."""
    folder = tmp_path / "mail"
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(folder)
    return folder


def mails(folder: Path) -> list[str]:
    if not folder.exists():
        return []
    return [path.read_text() for path in sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns)]


def last_mail_to(folder: Path, email: str) -> str:
    found = [text for text in mails(folder) if f"To: {email}" in text]
    assert found, f"no mail to {email}"
    return found[-1]


def link_in(text: str, pattern: re.Pattern = LINK) -> str:
    match = pattern.search(text)
    assert match, text
    return match.group(1)


def path_of(url: str) -> str:
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def sign_up(client: Client, email: str, password: str = PASSWORD, **extra):
    return client.post("/signup", {"email": email, "password": password}, **extra)


def confirm(client: Client, folder: Path, email: str, password: str = PASSWORD):
    url = link_in(last_mail_to(folder, email))
    return client.post(path_of(url), {"password": password})


def sign_up_and_confirm(client: Client, folder: Path, email: str = "skipper@shipping.example") -> Account:
    """A confirmed account whose login is active in `client`."""
    assert sign_up(client, email).status_code == 302
    response = confirm(client, folder, email)
    assert response.status_code == 302 and response["Location"] == "/keys", response.content.decode()[:2000]
    return Account.objects.get(email=email)


# -- the sign-up page --------------------------------------------------------------------------------------


def test_the_signup_page_has_the_form_and_says_how_a_key_is_obtained(client):
    page = client.get("/signup")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="email"' in html and 'name="password"' in html and "csrfmiddlewaretoken" in html
    assert "How to get an API key" in html and "Authorization: Bearer" in html


def test_signing_up_mails_a_confirmation_link_and_creates_no_account_or_key(client, mail_dir):
    response = sign_up(client, "Skipper@Shipping.example")
    assert response.status_code == 302 and response["Location"] == "/signup/sent"
    assert "Check your inbox" in client.get("/signup/sent").content.decode()
    user = get_user_model().objects.get(username="skipper@shipping.example")
    assert not user.is_active and user.check_password(PASSWORD)
    assert not Account.objects.exists() and not ApiKey.objects.exists()
    mail = last_mail_to(mail_dir, "skipper@shipping.example")
    assert "/signup/confirm/" in link_in(mail)


def test_the_answer_is_the_same_whether_the_address_exists(client, mail_dir):
    sign_up_and_confirm(Client(), mail_dir, "known@shipping.example")
    known = sign_up(client, "known@shipping.example", "another-Pass-word-9")
    unknown = sign_up(client, "unknown@shipping.example", "another-Pass-word-9")
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"]
    user = get_user_model().objects.get(username="known@shipping.example")
    assert user.check_password(PASSWORD)  # a sign-up for a confirmed address changes nothing
    assert "already has a confirmed account" in last_mail_to(mail_dir, "known@shipping.example")
    assert "/signup/confirm/" in last_mail_to(mail_dir, "unknown@shipping.example")


@pytest.mark.parametrize(
    "email, domain",
    [
        ("someone@mailinator.com", "mailinator.com"),
        ("someone@MAILINATOR.COM", "mailinator.com"),
        ("someone@inbox.mailinator.com", "mailinator.com"),  # a parent domain on the list
        ("someone@deep.sub.guerrillamail.com", "guerrillamail.com"),
    ],
)
def test_public_throwaway_inboxes_are_refused_with_public_inbox_email(client, mail_dir, email, domain):
    response = sign_up(client, email)
    assert response.status_code == 400
    html = response.content.decode()
    assert "public_inbox_email" in html and domain in html
    assert not get_user_model().objects.exists() and mails(mail_dir) == []


def test_the_list_is_the_maintained_package_with_parent_domains():
    from disposable_email_domains import blocklist

    assert len(blocklist) > 1000
    assert signup.public_inbox_domain("a@mailinator.com") == "mailinator.com"
    assert signup.public_inbox_domain("a@x.y.mailinator.com") == "mailinator.com"
    assert signup.public_inbox_domain("a@shipping.example") is None
    assert (
        signup.public_inbox_domain("a@shipping-mailinator.example") is None
    )  # a suffix of a label is not a parent domain
    assert signup.public_inbox_domain("a@gmail.com") is None
    assert signup.public_inbox_domain("a@com") is None


@pytest.mark.parametrize("email", ["not-an-address", "two@@signs.example", "spaces in@side.example", ""])
def test_malformed_addresses_are_refused_on_the_page(client, email):
    response = sign_up(client, email)
    assert response.status_code == 400
    assert 'class="errorlist"' in response.content.decode()
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize(
    "password, words",
    [
        ("short1!", "too short"),
        ("password1234", "too common"),
        ("8402957163049", "entirely numeric"),
        ("skipper-shipping", "too similar"),
    ],
)
def test_weak_passwords_are_refused_by_django_password_validation(client, mail_dir, password, words):
    response = sign_up(client, "skipper@shipping.example", password)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not get_user_model().objects.exists() and mails(mail_dir) == []


def test_sign_up_is_rate_limited_per_address(client):
    for _ in range(5):
        assert sign_up(client, "busy@shipping.example").status_code == 302
    refused = sign_up(client, "busy@shipping.example")
    assert refused.status_code == 429
    assert "Too many sign-up attempts" in refused.content.decode()
    assert sign_up(client, "other@shipping.example").status_code == 302


def test_sign_up_is_rate_limited_per_client_address(client):
    for n in range(20):
        assert sign_up(client, f"crew{n}@shipping.example", REMOTE_ADDR="198.51.100.20").status_code == 302
    assert sign_up(client, "crew99@shipping.example", REMOTE_ADDR="198.51.100.20").status_code == 429
    assert not get_user_model().objects.filter(username="crew99@shipping.example").exists()
    assert sign_up(client, "crew99@shipping.example", REMOTE_ADDR="198.51.100.21").status_code == 302


def test_a_form_without_its_csrf_token_is_refused_with_a_readable_page():
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/signup", {"email": "skipper@shipping.example", "password": PASSWORD})
    assert response.status_code == 403
    html = response.content.decode()
    assert "CSRF check failed" in html and "reload the page" in html
    assert not get_user_model().objects.exists()


def test_a_mail_that_cannot_be_sent_leaves_nothing_half_created(client, monkeypatch):
    def refuse(*args, **kwargs):
        raise SMTPException("relay down")

    monkeypatch.setattr(signup, "send_mail", refuse)
    response = sign_up(client, "skipper@shipping.example")
    assert response.status_code == 503
    assert "nothing was saved" in response.content.decode()
    assert not get_user_model().objects.exists()


def test_session_and_csrf_cookies_are_secure_in_production():
    env = {**os.environ, "SERVICE_MODE": "production", "SECRET_KEY": "x" * 50, "DEBUG": "0"}
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY)"
    )
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["True", "True", "True"], result.stderr[-2000:]


# -- confirmation ------------------------------------------------------------------------------------------


def test_opening_the_link_confirms_nothing_until_the_password_is_entered(client, mail_dir):
    sign_up(client, "skipper@shipping.example")
    url = link_in(last_mail_to(mail_dir, "skipper@shipping.example"))
    page = client.get(path_of(url))  # a mail scanner opening the link
    assert page.status_code == 200 and "Confirm your e-mail address" in page.content.decode()
    assert not get_user_model().objects.get(username="skipper@shipping.example").is_active
    assert not Account.objects.exists()


def test_confirming_opens_the_account_and_logs_in(client, mail_dir):
    account = sign_up_and_confirm(client, mail_dir)
    user = get_user_model().objects.get(username="skipper@shipping.example")
    assert user.is_active and account.user == user and account.plan == "free"
    assert not ApiKey.objects.exists()  # keys come from the key page
    keys_page = client.get("/keys")
    assert keys_page.status_code == 200 and "Your API keys" in keys_page.content.decode()


def test_a_wrong_password_on_the_confirmation_page_confirms_nothing(client, mail_dir):
    sign_up(client, "skipper@shipping.example")
    response = confirm(client, mail_dir, "skipper@shipping.example", password="not-the-one-chosen")
    assert response.status_code == 400
    assert "not the password chosen" in response.content.decode()
    assert not get_user_model().objects.get(username="skipper@shipping.example").is_active
    assert not Account.objects.exists()


def test_a_reused_confirmation_link_says_it_was_used(client, mail_dir):
    sign_up_and_confirm(client, mail_dir)
    url = link_in(last_mail_to(mail_dir, "skipper@shipping.example"))
    again = Client().get(path_of(url))
    assert again.status_code == 400
    assert "already confirmed" in again.content.decode() and 'data-code="link_used"' in again.content.decode()
    assert Account.objects.count() == 1


def test_an_expired_link_says_so(client, mail_dir, settings):
    sign_up(client, "skipper@shipping.example")
    settings.SIGNUP_LINK_MAX_AGE_SECONDS = -1
    response = confirm(client, mail_dir, "skipper@shipping.example")
    assert response.status_code == 400 and 'data-code="link_expired"' in response.content.decode()
    assert "Sign up again" in response.content.decode()
    assert not Account.objects.exists()


def test_a_damaged_link_is_refused(client, mail_dir):
    sign_up(client, "skipper@shipping.example")
    url = link_in(last_mail_to(mail_dir, "skipper@shipping.example"))
    response = client.get(path_of(url)[:-3] + "abc")
    assert response.status_code == 400 and 'data-code="link_invalid"' in response.content.decode()


def test_signing_up_again_replaces_the_earlier_link_and_password(client, mail_dir):
    sign_up(client, "skipper@shipping.example", "first-Pass-word-1")
    first = link_in(last_mail_to(mail_dir, "skipper@shipping.example"))
    sign_up(client, "skipper@shipping.example", "second-Pass-word-2")
    stale = client.post(path_of(first), {"password": "first-Pass-word-1"})
    assert stale.status_code == 400 and 'data-code="link_replaced"' in stale.content.decode()
    assert confirm(client, mail_dir, "skipper@shipping.example", "second-Pass-word-2").status_code == 302


def test_confirming_an_address_an_operator_opened_links_that_account(client, mail_dir):
    from datetime import date

    from accounts.services import issue_key

    operator_account, _, _ = issue_key(email="pilot@shipping.example", environment="test", opened_on=date(2026, 9, 1))
    account = sign_up_and_confirm(client, mail_dir, "pilot@shipping.example")
    assert account.pk == operator_account.pk and account.opened_on == date(2026, 9, 1)
    assert account.user.username == "pilot@shipping.example"


# -- log in / out ------------------------------------------------------------------------------------------


def test_log_in_and_out(client, mail_dir):
    sign_up_and_confirm(Client(), mail_dir)
    bad = client.post("/login", {"username": "skipper@shipping.example", "password": "wrong-password-1"})
    assert bad.status_code == 200 and "do not match a confirmed account" in bad.content.decode()
    good = client.post("/login", {"username": "Skipper@Shipping.example", "password": PASSWORD})
    assert good.status_code == 302 and good["Location"] == "/keys"
    assert client.get("/keys/usage").status_code == 200
    out = client.post("/logout")
    assert out.status_code == 302
    assert client.get("/keys/usage")["Location"].startswith("/login")


def test_an_unconfirmed_address_cannot_log_in(client):
    sign_up(client, "skipper@shipping.example")
    response = client.post("/login", {"username": "skipper@shipping.example", "password": PASSWORD})
    assert response.status_code == 200 and "_auth_user_id" not in client.session


def test_log_in_is_rate_limited_per_address(client, mail_dir):
    sign_up_and_confirm(Client(), mail_dir)
    for _ in range(10):
        client.post("/login", {"username": "skipper@shipping.example", "password": "wrong-password-1"})
    refused = client.post("/login", {"username": "skipper@shipping.example", "password": PASSWORD})
    assert refused.status_code == 429 and "Too many log-in attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session


# -- password reset ----------------------------------------------------------------------------------------


def test_password_reset_by_mail(client, mail_dir):
    sign_up_and_confirm(Client(), mail_dir)
    response = client.post("/password-reset", {"email": "skipper@shipping.example"})
    assert response.status_code == 302 and response["Location"] == "/password-reset/sent"
    url = link_in(last_mail_to(mail_dir, "skipper@shipping.example"), RESET_LINK)
    form = client.get(path_of(url), follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": "new-Harbour-pass-3", "new_password2": "new-Harbour-pass-3"}
    )
    assert done.status_code == 302
    assert get_user_model().objects.get(username="skipper@shipping.example").check_password("new-Harbour-pass-3")
    reused = Client().get(path_of(url), follow=True)
    assert "cannot be used" in reused.content.decode()


def test_password_reset_answers_the_same_for_an_unknown_address(client, mail_dir):
    response = client.post("/password-reset", {"email": "nobody@shipping.example"})
    assert response.status_code == 302 and response["Location"] == "/password-reset/sent"
    assert mails(mail_dir) == []
