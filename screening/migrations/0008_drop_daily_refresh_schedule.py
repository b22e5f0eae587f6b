"""The daily full refresh gave way to polling every SOURCE_POLL_SECONDS (`poll-sources`).

django-celery-beat's database scheduler adds the entries of CELERY_BEAT_SCHEDULE but never removes
one that left it, so the old `refresh-sources-daily` row would keep downloading every list in full
once a day on deployments that had it.
"""

from django.db import migrations


def drop_daily_refresh(apps, schema_editor):
    periodic_task = apps.get_model("django_celery_beat", "PeriodicTask")
    periodic_task.objects.filter(name="refresh-sources-daily").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("screening", "0007_source_feeds_and_edition_diffs"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(drop_daily_refresh, migrations.RunPython.noop)]
