"""Base class of every keyed endpoint: the authentication and permission of the keyed lane."""

from __future__ import annotations

from rest_framework.views import APIView

from metering.auth import ApiKeyAuthentication, KeyedAccess


class KeyedAPIView(APIView):
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [KeyedAccess]
    required_scope: str | None = None
    live_only = False


class KeylessAPIView(APIView):
    authentication_classes: list = []
    permission_classes: list = []
