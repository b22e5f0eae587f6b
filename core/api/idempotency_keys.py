"""What an Idempotency-Key may be (the header's rule, published in the OpenAPI document)."""

MAX_KEY_LENGTH = 255
