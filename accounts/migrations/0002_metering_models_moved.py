"""The metering models moved to the metering app (their tables keep their names)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
        ("metering", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name="ServiceSwitches"),
                migrations.DeleteModel(name="AccessLogEntry"),
                migrations.DeleteModel(name="IdempotencyRecord"),
                migrations.DeleteModel(name="MeteringEvent"),
                migrations.DeleteModel(name="QuotaCounter"),
            ],
        ),
    ]
