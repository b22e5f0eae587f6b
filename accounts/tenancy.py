"""Everything an (account, environment) owns: one abstract model and one way to scope reads.

A tenant model names its id prefix (`ID_PREFIX = "scr"`) and gets a sortable prefixed id,
`account`, `environment` and `created_at`. Reads go through `Model.objects.owned_by(owner)`,
where the owner is the caller's key context (or anything with `account_id` and
`environment`): a test key never sees a live resource, nor one account another's.
"""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar, Protocol

from django.db import models
from django.db.models.signals import class_prepared
from django.dispatch import receiver
from django.http import Http404
from django.utils import timezone

from accounts.models import ENVIRONMENTS, Account
from core.api.ids import new_id


class Owner(Protocol):
    """Anything carrying these two, read-only (a key context, a frozen dataclass)."""

    @property
    def account_id(self) -> str: ...

    @property
    def environment(self) -> str: ...


class TenantQuerySet(models.QuerySet):
    def owned_by(self, owner: Owner) -> TenantQuerySet:
        return self.filter(account_id=owner.account_id, environment=owner.environment)

    def owned_one(self, owner: Owner, pk: str, *, for_update: bool = False) -> Any:
        """The owner's row `pk`, locked when `for_update` (inside the caller's transaction), or 404:
        another account's or environment's id reads as missing, never as forbidden."""
        rows = self.owned_by(owner)
        if for_update:
            rows = rows.select_for_update(of=("self",))
        found = rows.filter(pk=pk).first()
        if found is None:
            raise Http404
        return found


class TenantModel(models.Model):
    ID_PREFIX: ClassVar[str] = ""

    id = models.CharField(primary_key=True, max_length=40, editable=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    created_at = models.DateTimeField(default=timezone.now)

    objects = TenantQuerySet.as_manager()

    class Meta:
        abstract = True


@receiver(class_prepared)
def _give_prefixed_ids(sender: type[models.Model], **kwargs: object) -> None:
    """Each concrete tenant model mints ids with its own prefix (scr_…, vab_…)."""
    if issubclass(sender, TenantModel) and not sender._meta.abstract:
        if not sender.ID_PREFIX:
            raise TypeError(f"{sender.__name__} must set ID_PREFIX")
        sender._meta.pk.default = partial(new_id, sender.ID_PREFIX)
