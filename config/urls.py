from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularRedocView

from config.health import healthz, readyz
from config.pages import changelog_page
from mcp_bridge.views import mcp_health
from portal.landing import favicon, landing_page
from portal.views import operator_login

api_v1: list[URLPattern | URLResolver] = [
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("docs", SpectacularRedocView.as_view(url_name="openapi"), name="api-docs"),
    path("", include("metering.api.urls")),
    path("", include("screening.api.urls")),
    path("", include("voyages.api.urls")),
    path("", include("webhooks.api.urls")),
    path("", include("monitoring.api.urls")),
    path("", include("exports.api.urls")),
    path("", include("cargo.api.urls")),
    path("", include("behaviour.api.urls")),
]

urlpatterns = [
    path("", landing_page, name="landing"),
    path("favicon.ico", favicon, name="favicon-ico"),
    path("favicon.svg", favicon, name="favicon"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("health", mcp_health, name="mcp-health"),  # GET {mcp_url}/health when Django answers the MCP host
    path("admin/login/", operator_login, name="operator-login"),  # the admin's log-in, attempt-limited
    path("admin/", admin.site.urls),
    path("changelog", changelog_page, name="changelog"),
    path("api/v1/", include(api_v1)),
    # Sign-up, log-in and key pages; before screening.pages so /signup and /keys are served here.
    path("", include("portal.urls")),
    path("", include("screening.pages.urls")),
    path("", include("voyages.pages.urls")),
]
