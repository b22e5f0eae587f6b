"""Strict request fields: wrong JSON types are validation errors, never coerced."""

from __future__ import annotations

import math
import unicodedata

from rest_framework import serializers


class StrictStringField(serializers.CharField):
    """A JSON string only (DRF would turn 12 into "12"); no control characters."""

    default_error_messages = {
        "not_a_string": "must be a JSON string",
        "control": "must not contain control characters",
    }
    # Published in the OpenAPI document (core.api.openapi): no character of Unicode category Cc.
    # A subclass whose value has a stricter shape publishes that shape instead.
    published_pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$"

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        if any(unicodedata.category(ch) == "Cc" for ch in data):
            self.fail("control")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only (DRF would accept "yes", 1, "on")."""

    default_error_messages = {"not_a_boolean": "must be true or false"}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


class StrictNumberField(serializers.FloatField):
    """A JSON number only (not a numeric string, not a boolean), finite."""

    default_error_messages = {"not_a_number": "must be a JSON number"}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)) or not math.isfinite(data):
            self.fail("not_a_number")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only (DRF would accept "24", "24.0" and true): not a numeric string, not a boolean,
    not a number with a fraction. A number with a zero fraction (24.0) is the integer it equals, as JSON
    Schema's "integer" has it."""

    default_error_messages = {"not_an_integer": "must be a JSON integer"}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("not_an_integer")
        if isinstance(data, float):
            if not data.is_integer():
                self.fail("not_an_integer")
            data = int(data)
        return super().to_internal_value(data)
