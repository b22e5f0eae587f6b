"""Tells drf-spectacular that keyed endpoints take a Bearer API key."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "metering.auth.ApiKeyAuthentication"
    name = "BearerKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "API key: svc_test_… selects the test environment, svc_live_… the live one.",
        }
