"""Base class of every keyed endpoint: the authentication and permission of the keyed lane, and the
refusal of query parameters a keyed GET does not publish.

A keyed GET takes the query parameters its operation publishes and no other: the ones its
`@extend_schema(parameters=[…])` declares (a filter serializer's fields, an `OpenApiParameter` in the
query), plus `?format=` (core.api.strict_input). Any other is 422 validation_failed naming it before
the handler runs, on a list and on a read of one object alike, so the published document and what
the endpoint takes are one declaration.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.plumbing import force_instance, is_serializer
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.views import APIView

from core.api.strict_input import refuse_unknown_parameters
from metering.auth import ApiKeyAuthentication, KeyedAccess

_READS = ("GET", "HEAD")
_published: dict[tuple[type[APIView], str], frozenset[str]] = {}


def published_query_parameters(view: APIView, method: str) -> frozenset[str]:
    """The query parameters the operation of `view`'s `method` publishes, as drf-spectacular builds them
    from the handler's `@extend_schema(parameters=…)`: the input fields of a serializer, the name of an
    OpenApiParameter in the query. Worked out once per view class and method."""
    key = (type(view), method)
    known = _published.get(key)
    if known is not None:
        return known
    handler = getattr(view, method.lower(), None)
    schema_class = (getattr(handler, "kwargs", None) or {}).get("schema")
    names: set[str] = set()
    if schema_class is not None:
        schema = schema_class()
        schema.view, schema.method = view, method
        for parameter in schema.get_override_parameters():
            if isinstance(parameter, OpenApiParameter):
                if parameter.location == OpenApiParameter.QUERY and not parameter.exclude:
                    names.add(parameter.name)
            elif is_serializer(parameter):
                fields = force_instance(parameter).fields
                names.update(name for name, field in fields.items() if not field.read_only)
    known = _published[key] = frozenset(names)
    return known


class KeyedAPIView(APIView):
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [KeyedAccess]
    required_scope: str | None = None
    live_only = False

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authenticated and permitted first: 401/403/429 as before
        if request.method in _READS:
            refuse_unknown_parameters(request.query_params, published_query_parameters(self, "GET"))


class KeylessAPIView(APIView):
    authentication_classes: list = []
    permission_classes: list = []
