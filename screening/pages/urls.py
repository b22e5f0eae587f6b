from django.urls import path

from screening.pages.views import key_page, vessel_report

urlpatterns = [
    path("vessels/<path:imo>/report", vessel_report, name="vessel-report"),
    # Every "Get a free key" link (accounts.auth.signup_url) leads here; until self-serve sign-up is
    # built the page says how a key is obtained. /keys names the same page.
    path("signup", key_page, name="signup"),
    path("keys", key_page, name="keys"),
]
