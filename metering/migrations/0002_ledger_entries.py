"""The metering events become the allowance ledger (issue 25 item 4): each entry gets its reason and
the allowance period it draws on, and the pace rules' index reads counted screenings (reason charge).

Backfill of the rows the old code wrote (a charge per screening or assessment, a job's reservation,
no refund):

- reason: a screening row without an IMO and of more than one unit is a screening batch's
  reservation; an assessment row of more than one unit a voyage batch's reservation, and one of no
  unit a batch route settling against it. Every other row stays a charge (the old rows do not tell a
  one-unit reservation, a cargo top-up or a re-screen from a charge; the pace rules look back ten
  minutes and 40 screenings, quota_pace seven days, so the difference is gone within a week).
- period: "once" for the live screenings of an account on a one-time allowance (opened on or after
  2026-10-01, or a pilot), otherwise the UTC month of the row.
- the opening balance: refunds were never entered, so wherever a counter's `used` differs from its
  rows' sum, one adjustment entry (or a few, each within the units column's range) of the
  difference makes them equal. From here on every movement of a counter is entered with it.
"""

from datetime import date

from django.db import migrations, models
from django.db.models import Q, Sum
from django.utils import timezone

ONE_TIME_FROM = date(2026, 10, 1)  # contract part 8: live screening allowances are one-time from here
UNITS_RANGE = 32767  # a SmallIntegerField


def backfill(apps, schema_editor):
    MeteringEvent = apps.get_model("metering", "MeteringEvent")
    QuotaCounter = apps.get_model("metering", "QuotaCounter")
    Account = apps.get_model("accounts", "Account")
    connection = schema_editor.connection
    alias = connection.alias
    events = MeteringEvent.objects.using(alias)

    events.filter(kind="screening", imo="", units__gt=1).update(reason="reservation")
    events.filter(kind="assessment", units__gt=1).update(reason="reservation")
    events.filter(kind="assessment", units=0).update(reason="settlement")

    one_time = Account.objects.using(alias).filter(
        Q(pilot_screening_total__isnull=False) | Q(opened_on__gte=ONE_TIME_FROM)
    )
    events.filter(period="", kind="screening", environment="live", account__in=one_time.values("pk")).update(
        period="once"
    )
    table = connection.ops.quote_name(MeteringEvent._meta.db_table)
    if connection.vendor == "postgresql":
        month = "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM')"
    else:  # SQLite keeps datetimes as UTC text, 'YYYY-MM-DD HH:MM:SS…'
        month = "substr(at, 1, 7)"
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET period = {month} WHERE period = ''")

    entered = {
        (account_id, environment, kind, period): total
        for account_id, environment, kind, period, total in events.order_by()
        .values_list("account_id", "environment", "kind", "period")
        .annotate(total=Sum("units"))
    }
    drawn = {
        (account_id, environment, kind, period): used
        for account_id, environment, kind, period, used in QuotaCounter.objects.using(alias).values_list(
            "account_id", "environment", "kind", "period", "used"
        )
    }
    now = timezone.now()
    opening = []
    for key in sorted(set(entered) | set(drawn)):
        difference = drawn.get(key, 0) - (entered.get(key) or 0)
        account_id, environment, kind, period = key
        while difference:
            units = max(-UNITS_RANGE, min(UNITS_RANGE, difference))
            opening.append(
                MeteringEvent(
                    account_id=account_id, environment=environment, kind=kind, period=period, at=now,
                    imo="", units=units, reason="adjustment",
                )
            )  # fmt: skip
            difference -= units
    events.bulk_create(opening, batch_size=1000)


def forget_opening_balances(apps, schema_editor):
    MeteringEvent = apps.get_model("metering", "MeteringEvent")
    MeteringEvent.objects.using(schema_editor.connection.alias).filter(reason="adjustment").delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_account_user"),
        ("metering", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="meteringevent",
            name="reason",
            field=models.CharField(
                choices=[
                    ("charge", "Charge"),
                    ("rescreen", "Rescreen"),
                    ("reservation", "Reservation"),
                    ("settlement", "Settlement"),
                    ("refund", "Refund"),
                    ("topup", "Topup"),
                    ("adjustment", "Adjustment"),
                ],
                default="charge",
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="meteringevent",
            name="period",
            field=models.CharField(blank=True, max_length=7),
        ),
        migrations.RemoveIndex(
            model_name="meteringevent",
            name="accounts_me_account_a78580_idx",
        ),
        migrations.AddIndex(
            model_name="meteringevent",
            index=models.Index(fields=["account", "kind", "reason", "at"], name="metering_ledger_pace_idx"),
        ),
        migrations.RunPython(backfill, forget_opening_balances),
    ]
