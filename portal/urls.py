"""Sign-up, log-in and key pages. Every "Get a free key" link (metering.auth.signup_url) leads to /signup."""

from django.urls import path

from portal import landing, views

app_name = "accounts"

urlpatterns = [
    path("check", landing.check_form, name="check"),
    path("signup", views.signup_page, name="signup"),
    path("signup/sent", views.signup_sent, name="signup-sent"),
    path("signup/confirm/<str:token>", views.confirm_page, name="signup-confirm"),
    path("login", views.LoginView.as_view(), name="login"),
    path("logout", views.LogoutView.as_view(), name="logout"),
    path("password-reset", views.PasswordResetView.as_view(), name="password-reset"),
    path("password-reset/sent", views.PasswordResetDoneView.as_view(), name="password-reset-sent"),
    path("password-reset/<uidb64>/<token>", views.PasswordResetConfirmView.as_view(), name="password-reset-confirm"),
    path("password-reset/done", views.PasswordResetCompleteView.as_view(), name="password-reset-done"),
    path("keys", views.keys_page, name="keys"),
    path("keys/<str:key_id>/revoke", views.revoke_page, name="revoke-key"),
    path("keys/usage", views.usage_page, name="usage"),
    path("keys/access-log", views.access_log_page, name="access-log"),
]
