"""Sign-up, log-in, password reset and the key pages (server-rendered, the project's own templates).

Every "Get a free key" link (metering.auth.signup_url) leads to /signup. Writes go through
accounts.signup (sign-up, confirmation) and accounts.services (issue_key, revoke_key); usage comes
from metering.quota (the function GET /api/v1/usage uses) and the access log from metering.selectors.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import wraps
from smtplib import SMTPException

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import signup
from accounts.models import ALL_SCOPES, ENV_LIVE, ENV_TEST, Account, ApiKey
from accounts.services import KeyRequestError, issue_key, revoke_key
from core.api.clientip import client_ip
from core.api.errors import FieldViolation
from core.api.pagination import decode_cursor, paginate
from metering import quota, ratelimit, selectors
from metering.auth import signup_url
from portal.forms import MAX_ALLOWED_IPS, ConfirmForm, CreateKeyForm, EmailLoginForm, SignupForm

MAX_ACTIVE_KEYS = 25  # per account, both environments together
ACCESS_LOG_PAGE_SIZE = 50


def _page(request: HttpRequest, template: str, context: dict | None = None, status: int = 200) -> HttpResponse:
    base = {
        "signup_url": signup_url(),
        "base_url": settings.PUBLIC_BASE_URL,
        "mcp_url": settings.MCP_BASE_URL,
        "service_account": _account_of(request),
    }
    return render(request, template, {**base, **(context or {})}, status=status)


def _account_of(request: HttpRequest) -> Account | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    return Account.objects.filter(user=user).first()


def _wait_text(state: ratelimit.RateState) -> str:
    minutes = max(1, math.ceil((state.reset_at - time.time()) / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def over_rate(request: HttpRequest, action: str, email: str | None) -> ratelimit.RateState | None:
    """Count one attempt of `action` per client address and per e-mail address; the refusing window or None."""
    per_email, per_ip = (
        (signup.LOGIN_PER_EMAIL, signup.LOGIN_PER_IP)
        if action in {"login", "confirm"}
        else (signup.SIGNUP_PER_EMAIL, signup.SIGNUP_PER_IP)
    )
    state = ratelimit.hit(per_ip, "pages", action, "ip", client_ip(request))
    if not state.allowed:
        return state
    if email:
        state = ratelimit.hit(per_email, "pages", action, "email", signup.request_hash(email))
        if not state.allowed:
            return state
    return None


# -- sign-up ----------------------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def signup_page(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            email = form.cleaned_data["email"]
            refused = over_rate(request, "signup", email)
            if refused is not None:
                wait = _wait_text(refused)
                form.add_error(None, f"Too many sign-up attempts from here or for this address. Try again in {wait}.")
                return _page(request, "accounts/signup.html", {"form": form}, status=429)
            try:
                signup.request_signup(email, form.cleaned_data["password"])
            except (SMTPException, OSError):
                form.add_error(None, "We could not send the confirmation mail just now; nothing was saved. Try again.")
                return _page(request, "accounts/signup.html", {"form": form}, status=503)
            request.session["signup_email"] = email
            return redirect("accounts:signup-sent")
        status = 400
    return _page(request, "accounts/signup.html", {"form": form}, status=status)


@never_cache
def signup_sent(request: HttpRequest) -> HttpResponse:
    return _page(request, "accounts/signup_sent.html", {"email": request.session.get("signup_email")})


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def confirm_page(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows the form (mail scanners that open links confirm nothing); POST with the password confirms."""
    try:
        user = signup.user_for_token(token)
    except signup.LinkProblem as problem:
        return _page(request, "accounts/confirm_problem.html", {"problem": problem}, status=400)
    form = ConfirmForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        refused = over_rate(request, "confirm", user.email)
        if refused is not None:
            form.add_error(None, f"Too many attempts. Try again in {_wait_text(refused)}.")
            return _page(request, "accounts/confirm.html", {"form": form, "email": user.email}, status=429)
        if user.check_password(form.cleaned_data["password"]):
            account = signup.confirm_signup(user)
            user.is_active = True
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"{account.email} is confirmed. Create your first key below.")
            return redirect("accounts:keys")
        form.add_error("password", "That is not the password chosen for this sign-up.")
    status = 400 if request.method == "POST" else 200
    return _page(request, "accounts/confirm.html", {"form": form, "email": user.email}, status=status)


# -- log in / out, password reset ---------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def operator_login(request: HttpRequest) -> HttpResponse:
    """The admin's log-in with the attempt limit /login has (per username and per client address)."""
    from django.contrib import admin

    if request.method == "POST":
        refused = over_rate(request, "login", request.POST.get("username", "")[:254])
        if refused is not None:
            return HttpResponse(
                f"Too many log-in attempts. Try again in {_wait_text(refused)}.",
                status=429,
                content_type="text/plain; charset=utf-8",
            )
    return admin.site.login(request)


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def get_form_class(self):
        return EmailLoginForm

    def post(self, request, *args, **kwargs):
        email = signup.normalise_email(request.POST.get("username", ""))[:254]
        refused = over_rate(request, "login", email)
        if refused is not None:
            form = self.get_form()
            form.is_bound = False  # shown again without checking the password
            context = self.get_context_data(form=form)
            context["rate_error"] = f"Too many log-in attempts. Try again in {_wait_text(refused)}."
            return _page(request, self.template_name, context, status=429)
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "signup_url": signup_url()}


class LogoutView(auth_views.LogoutView):
    template_name = "accounts/logged_out.html"


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/mail/password_reset.txt"
    subject_template_name = "accounts/mail/password_reset_subject.txt"

    def get_success_url(self) -> str:
        return reverse("accounts:password-reset-sent")

    def form_valid(self, form):
        refused = over_rate(self.request, "password_reset", signup.normalise_email(form.cleaned_data["email"]))
        if refused is not None:
            form.add_error(None, f"Too many reset requests. Try again in {_wait_text(refused)}.")
            return _page(self.request, self.template_name, {"form": form}, status=429)
        self.extra_email_context = {"base_url": settings.PUBLIC_BASE_URL}
        return super().form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_sent.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"

    def get_success_url(self) -> str:
        return reverse("accounts:password-reset-done")


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_done.html"


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A readable page for a form sent without a valid CSRF token (the API never uses CSRF)."""
    if request.path.startswith("/api/"):
        return django_csrf_failure(request, reason)
    return _page(request, "accounts/csrf_failure.html", {"reason": reason}, status=403)


# -- key pages ---------------------------------------------------------------------------------------


def account_required(view):
    """Logged in, with a confirmed account (an operator login without one sees why)."""

    @wraps(view)
    @login_required
    @never_cache
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        account = _account_of(request)
        if account is None:
            return _page(request, "keys/no_account.html", status=403)
        return view(request, account, *args, **kwargs)

    return wrapped


def _keys_context(account: Account, form: CreateKeyForm) -> dict:
    keys = list(ApiKey.objects.filter(account=account).order_by("-created_at"))
    active = [key for key in keys if key.revoked_at is None]
    return {
        "account": account,
        "keys": keys,
        "active_count": len(active),
        "max_active_keys": MAX_ACTIVE_KEYS,
        "form": form,
        "all_scopes": ALL_SCOPES,
        "max_allowed_ips": MAX_ALLOWED_IPS,
        "nav": "keys",
    }


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def keys_page(request: HttpRequest) -> HttpResponse:
    """The account's keys and the form that creates one; without a log-in, the sign-up page."""
    if not request.user.is_authenticated:
        return _page(request, "accounts/signup.html", {"form": SignupForm(), "keys_prompt": True})
    return _keys_page(request)


@account_required
def _keys_page(request: HttpRequest, account: Account) -> HttpResponse:
    if request.method != "POST":
        return _page(request, "keys/keys.html", _keys_context(account, CreateKeyForm()))
    form = CreateKeyForm(request.POST)
    if form.is_valid() and ApiKey.objects.filter(account=account, revoked_at__isnull=True).count() >= MAX_ACTIVE_KEYS:
        form.add_error(None, f"An account holds at most {MAX_ACTIVE_KEYS} active keys; revoke one first.")
    if not form.is_valid():
        return _page(request, "keys/keys.html", _keys_context(account, form), status=400)
    data = form.cleaned_data
    try:
        _, key, raw = issue_key(
            email=account.email,
            environment=data["environment"],
            scopes=[scope for scope in ALL_SCOPES if scope in data["scopes"]],
            allowed_ips=data["allowed_ips"],
            label=data["label"].strip(),
        )
    except KeyRequestError as exc:
        form.add_error(None, str(exc))
        return _page(request, "keys/keys.html", _keys_context(account, form), status=400)
    # The raw key is in this one response only (never stored, never in a URL, never cached).
    response = _page(request, "keys/key_created.html", {"key": key, "raw_key": raw, "account": account, "nav": "keys"})
    response["Cache-Control"] = "no-store"
    return response


def _own_key(account: Account, key_id: str) -> ApiKey:
    key = ApiKey.objects.filter(pk=key_id, account=account).first()
    if key is None:
        raise Http404("No such key on this account.")
    return key


@account_required
@require_http_methods(["GET", "HEAD", "POST"])
def revoke_page(request: HttpRequest, account: Account, key_id: str) -> HttpResponse:
    key = _own_key(account, key_id)
    if request.method == "POST":
        if key.revoked_at is None:
            revoke_key(key)
            messages.success(
                request, f"Revoked {key.display_prefix}…: requests with it are refused (401) from the next one."
            )
        else:
            messages.info(request, f"{key.display_prefix}… was already revoked.")
        return redirect("accounts:keys")
    return _page(request, "keys/revoke.html", {"key": key, "account": account, "nav": "keys"})


@dataclass(frozen=True)
class _Owner:
    account_id: str
    environment: str


@account_required
def usage_page(request: HttpRequest, account: Account) -> HttpResponse:
    """Both environments' figures, read by the function GET /api/v1/usage answers from."""
    now = timezone.now()
    environments = []
    for environment in (ENV_LIVE, ENV_TEST):
        states = quota.current_states(account, environment, (quota.KIND_SCREENING, quota.KIND_ASSESSMENT), now)
        environments.append(
            {
                "name": environment,
                "screenings": states[quota.KIND_SCREENING].as_dict(),
                "voyage_assessments": states[quota.KIND_ASSESSMENT].as_dict(),
            }
        )
    return _page(request, "keys/usage.html", {"account": account, "environments": environments, "nav": "usage"})


@account_required
def access_log_page(request: HttpRequest, account: Account) -> HttpResponse:
    """The account's entries in both environments (or one), newest first, 50 a page."""
    chosen = request.GET.get("environment", "")
    environments = [chosen] if chosen in (ENV_TEST, ENV_LIVE) else [ENV_LIVE, ENV_TEST]
    filters: dict = {"limit": ACCESS_LOG_PAGE_SIZE}
    if request.GET.get("cursor"):
        try:
            filters["cursor"] = decode_cursor(request.GET["cursor"])
        except FieldViolation:
            return redirect(reverse("accounts:access-log"))
    first, *others = environments
    entries = selectors.filtered_entries(_Owner(account.pk, first), {})
    for environment in others:
        entries = entries | selectors.filtered_entries(_Owner(account.pk, environment), {})
    page = paginate(entries, filters, plural="entries", render=lambda entry: entry)
    return _page(
        request,
        "keys/access_log.html",
        {
            "account": account,
            "entries": page["entries"],
            "next_cursor": page["next_cursor"],
            "environment": chosen if chosen in (ENV_TEST, ENV_LIVE) else "",
            "first_page": "cursor" not in filters,
            "nav": "log",
        },
    )
