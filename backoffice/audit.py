"""Recording operator actions (call inside the transaction that makes the change)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.db import models

from backoffice.models import OperatorAction


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def snapshot(instance: models.Model, fields: list[str] | tuple[str, ...]) -> dict:
    return {name: _plain(getattr(instance, name)) for name in fields}


def record(
    operator: Any,
    action: str,
    target: models.Model | None = None,
    *,
    target_type: str = "",
    target_id: str = "",
    before: dict | None = None,
    after: dict | None = None,
    note: str = "",
) -> OperatorAction:
    if target is not None:
        target_type = target_type or target._meta.label
        target_id = target_id or str(target.pk)
    return OperatorAction.objects.create(
        operator=operator if getattr(operator, "pk", None) else None,
        operator_name=getattr(operator, "get_username", lambda: "system")(),
        action=action,
        target_type=target_type,
        target_id=target_id,
        target_label=str(target)[:300] if target is not None else "",
        before=_plain(before or {}),
        after=_plain(after or {}),
        note=note[:500],
    )
