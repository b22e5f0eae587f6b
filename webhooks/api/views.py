"""Webhook endpoints and the delivery log (webhooks:manage): endpoint lifecycle (the secret once, rotation),
the signed test delivery, deliveries listed and fetched with their attempts, redelivery."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from core.api.fields import StrictBooleanField, StrictIntegerField, StrictStringField
from core.api.filters import read_body, read_filters
from core.api.openapi import DeletedSchema, creating_operation
from core.api.responses import json_bytes_response, to_json_bytes
from core.api.strict_input import StrictInputSerializer
from metering.api.base import KeyedAPIView
from metering.idempotency import claim_of, idempotent
from webhooks import selectors, services
from webhooks.delivery import TEST_EVENT_TYPE
from webhooks.events import EVENT_TYPES
from webhooks.models import Delivery, DeliveryAttempt
from webhooks.selectors import DeliveryFilter, EndpointFilter

SCOPE = "webhooks:manage"


class HttpsUrlField(StrictStringField):
    """The receiver's URL. Whether its host is public is judged when the request arrives
    (webhooks.services.check_url); the document publishes the part a pattern can state."""

    # https:// in any letter case (leading white space is trimmed), then no control character.
    published_pattern = "^\\s*[Hh][Tt][Tt][Pp][Ss]://[^\\x00-\\x1f\\x7f-\\x9f]+$"


class EndpointInput(StrictInputSerializer):
    url = HttpsUrlField(max_length=2000, help_text="Public https:// URL that receives the signed events")
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=list(EVENT_TYPES)),
        required=False,
        max_length=len(EVENT_TYPES),
        help_text="Types this endpoint receives; empty (the default) means every type",
    )
    enabled = StrictBooleanField(required=False, default=True)
    description = StrictStringField(required=False, max_length=200, allow_blank=True)


class EndpointUpdate(EndpointInput):
    url = HttpsUrlField(max_length=2000, required=False)
    enabled = StrictBooleanField(required=False)


class EndpointSchema(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=list(EVENT_TYPES)))
    enabled = serializers.BooleanField()
    disabled_reason = serializers.CharField(
        allow_null=True, help_text="Why the service disabled it (a 410 from the receiver); null otherwise"
    )
    description = serializers.CharField()
    previous_secret_expires_at = serializers.DateTimeField(
        allow_null=True, help_text="While a rotation's overlap lasts: when the previous secret stops signing"
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    url_warning = serializers.CharField(required=False, help_text="The name did not resolve when saved")


class CreatedEndpointSchema(EndpointSchema):
    secret = serializers.CharField(help_text="HMAC-SHA256 signing secret, shown once")


class EndpointListSchema(serializers.Serializer):
    webhook_endpoints = EndpointSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class RotationInput(StrictInputSerializer):
    overlap_hours = StrictIntegerField(
        min_value=0,
        max_value=168,
        required=False,
        default=24,
        help_text="Hours the previous secret keeps signing alongside the new one (v1= twice); 0 ends it now",
    )


class AttemptSchema(serializers.Serializer):
    number = serializers.IntegerField()
    trigger = serializers.ChoiceField(choices=DeliveryAttempt.Trigger.values)
    outcome = serializers.ChoiceField(choices=DeliveryAttempt.Outcome.values)
    started_at = serializers.DateTimeField()
    duration_ms = serializers.IntegerField(allow_null=True)
    status_code = serializers.IntegerField(allow_null=True)
    error = serializers.CharField(allow_null=True)
    response_excerpt = serializers.CharField(help_text="The first 1,024 bytes of the answer")


class EventEnvelopeSchema(serializers.Serializer):
    id = serializers.CharField(help_text="Event id (evt_…): deduplicate on it")
    type = serializers.ChoiceField(choices=[*EVENT_TYPES, TEST_EVENT_TYPE])
    created = serializers.DateTimeField()
    environment = serializers.ChoiceField(choices=["test", "live"])
    api_version = serializers.CharField()
    # The serializer's metaclass takes declared fields out of the class, so this does not replace
    # Serializer.data; the stubs see a plain class attribute.
    data = serializers.DictField()  # type: ignore[assignment]


class DeliverySchema(serializers.Serializer):
    id = serializers.CharField()
    event_id = serializers.CharField()
    event_type = serializers.ChoiceField(choices=[*EVENT_TYPES, TEST_EVENT_TYPE])
    endpoint_id = serializers.CharField()
    status = serializers.ChoiceField(choices=Delivery.Status.values)
    attempt_count = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class DeliveryDetailSchema(DeliverySchema):
    event = EventEnvelopeSchema(help_text="The envelope as it is signed and sent")
    attempts = AttemptSchema(many=True)


class DeliveryListSchema(serializers.Serializer):
    webhook_deliveries = DeliverySchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class WebhookEndpointCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="create_webhook_endpoint",
        summary="Register a public HTTPS endpoint; the signing secret is returned once",
        request=EndpointInput,
        responses={201: OpenApiResponse(CreatedEndpointSchema)},
    )
    @idempotent
    def post(self, request):
        values = read_body(EndpointInput, request.data)
        saved = services.create_endpoint(request.auth, values, in_transaction=claim_of(request).completes(201))
        return json_bytes_response(saved.body, status=201)

    @extend_schema(
        operation_id="list_webhook_endpoints",
        summary="The environment's webhook endpoints (newest first)",
        parameters=[EndpointFilter],
        responses={200: EndpointListSchema},
    )
    def get(self, request):
        filters = read_filters(EndpointFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.endpoint_list(request.auth, filters)))


class WebhookEndpointDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(operation_id="get_webhook_endpoint", summary="One webhook endpoint", responses={200: EndpointSchema})
    def get(self, request, endpoint_id: str):
        return json_bytes_response(selectors.endpoint_detail(request.auth, endpoint_id))

    @creating_operation(
        operation_id="update_webhook_endpoint",
        summary="Change the URL, event_types, enabled or description",
        request=EndpointUpdate,
        responses={200: EndpointSchema},
    )
    @idempotent
    def patch(self, request, endpoint_id: str):
        values = read_body(EndpointUpdate, request.data, partial=True)
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
    def delete(self, request, endpoint_id: str):
        saved = services.delete_endpoint(request.auth, endpoint_id, in_transaction=claim_of(request).completes(200))
        return json_bytes_response(saved.body)


class WebhookEndpointTestView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="send_webhook_test_delivery",
        summary="Send a signed webhook.test event to this endpoint (whatever it lists); follow it in the delivery log",
        request=None,
        responses={202: OpenApiResponse(DeliverySchema)},
    )
    @idempotent
    def post(self, request, endpoint_id: str):
        queued = services.send_test_delivery(request.auth, endpoint_id, in_transaction=claim_of(request).completes(202))
        return json_bytes_response(queued.body, status=202)


class WebhookEndpointRotationView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="rotate_webhook_secret",
        summary="Replace the signing secret (returned once); the old one keeps signing during the overlap",
        request=RotationInput,
        responses={200: OpenApiResponse(CreatedEndpointSchema)},
    )
    @idempotent
    def post(self, request, endpoint_id: str):
        values = read_body(RotationInput, request.data)
        saved = services.rotate_secret(
            request.auth, endpoint_id, values["overlap_hours"], in_transaction=claim_of(request).completes(200)
        )
        return json_bytes_response(saved.body)


class WebhookDeliveryCollectionView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="list_webhook_deliveries",
        summary="The environment's deliveries, newest first",
        parameters=[DeliveryFilter],
        responses={200: DeliveryListSchema},
    )
    def get(self, request):
        filters = read_filters(DeliveryFilter, request.query_params)
        return json_bytes_response(to_json_bytes(selectors.delivery_list(request.auth, filters)))


class WebhookDeliveryDetailView(KeyedAPIView):
    required_scope = SCOPE

    @extend_schema(
        operation_id="get_webhook_delivery",
        summary="One delivery with the signed envelope and every attempt",
        responses={200: DeliveryDetailSchema},
    )
    def get(self, request, delivery_id: str):
        return json_bytes_response(to_json_bytes(selectors.delivery_detail(request.auth, delivery_id)))


class WebhookRedeliveryView(KeyedAPIView):
    required_scope = SCOPE

    @creating_operation(
        operation_id="redeliver_webhook_delivery",
        summary="Send the same event (same event id) again now; the retry schedule starts again",
        request=None,
        responses={202: OpenApiResponse(DeliverySchema)},
        error_notes={409: "An attempt is in flight, or the endpoint is disabled"},
    )
    @idempotent
    def post(self, request, delivery_id: str):
        queued = services.redeliver(request.auth, delivery_id, in_transaction=claim_of(request).completes(202))
        return json_bytes_response(queued.body, status=202)
