"""Webhook endpoints (webhooks:manage): create (the secret once), list, get, update, delete."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from accounts.api.base import KeyedAPIView
from config.api.fields import StrictBooleanField, StrictStringField
from config.api.filters import read_filters
from config.api.openapi import creating_operation
from config.api.responses import json_bytes_response, to_json_bytes
from metering.idempotency import claim_of, idempotent
from webhooks import selectors, services
from webhooks.events import EVENT_TYPES
from webhooks.selectors import EndpointFilter

SCOPE = "webhooks:manage"


class EndpointInput(serializers.Serializer):
    url = StrictStringField(max_length=2000, help_text="Public https:// URL that receives the signed events")
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=list(EVENT_TYPES)),
        required=False,
        max_length=len(EVENT_TYPES),
        help_text="Types this endpoint receives; empty (the default) means every type",
    )
    enabled = StrictBooleanField(required=False, default=True)
    description = StrictStringField(required=False, max_length=200, allow_blank=True)


class EndpointUpdate(EndpointInput):
    url = StrictStringField(max_length=2000, required=False)
    enabled = StrictBooleanField(required=False)


class EndpointSchema(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=list(EVENT_TYPES)))
    enabled = serializers.BooleanField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    url_warning = serializers.CharField(required=False, help_text="The name did not resolve when saved")


class CreatedEndpointSchema(EndpointSchema):
    secret = serializers.CharField(help_text="HMAC-SHA256 signing secret, shown once")


class EndpointListSchema(serializers.Serializer):
    webhook_endpoints = EndpointSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class DeletedSchema(serializers.Serializer):
    id = serializers.CharField()
    deleted = serializers.BooleanField()


def _valid(serializer_class: type[serializers.Serializer], data: object, *, partial: bool = False) -> dict:
    form = serializer_class(data=data, partial=partial)
    form.is_valid(raise_exception=True)
    return dict(form.validated_data)


class WebhookEndpointCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="create_webhook_endpoint",
        summary="Register a public HTTPS endpoint; the signing secret is returned once",
        request=EndpointInput,
        responses={201: OpenApiResponse(CreatedEndpointSchema)},
    )
    @idempotent
    def post(self, request):  # type: ignore[no-untyped-def]
        values = _valid(EndpointInput, request.data)
        saved = services.create_endpoint(request.auth, values, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)

    @extend_schema(
        operation_id="list_webhook_endpoints",
        summary="The environment's webhook endpoints (newest first)",
        parameters=[EndpointFilter],
        responses={200: EndpointListSchema},
    )
    def get(self, request):  # type: ignore[no-untyped-def]
        filters = read_filters(EndpointFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.endpoint_list(request.auth, filters)))


class WebhookEndpointDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(operation_id="get_webhook_endpoint", summary="One webhook endpoint", responses={200: EndpointSchema})
    def get(self, request, endpoint_id: str):  # type: ignore[no-untyped-def]
        return json_bytes_response(selectors.endpoint_detail(request.auth, endpoint_id))

    @creating_operation(
        operation_id="update_webhook_endpoint",
        summary="Change the URL, event_types, enabled or description",
        request=EndpointUpdate,
        responses={200: EndpointSchema},
    )
    @idempotent
    def patch(self, request, endpoint_id: str):  # type: ignore[no-untyped-def]
        values = _valid(EndpointUpdate, request.data, partial=True)
        saved = services.update_endpoint(
            request.auth, endpoint_id, values, in_transaction=claim_of(request).completes(200)
        )
        return json_bytes_response(saved.body)

    @creating_operation(
        operation_id="delete_webhook_endpoint",
        summary="Delete a webhook endpoint",
        request=None,
        responses={200: DeletedSchema},
    )
    @idempotent
    def delete(self, request, endpoint_id: str):  # type: ignore[no-untyped-def]
        saved = services.delete_endpoint(request.auth, endpoint_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(saved.body)
