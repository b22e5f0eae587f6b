"""The metering models move here from accounts; their tables keep their names (state only)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='ServiceSwitches',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('api_paused', models.BooleanField(default=False, help_text='Keyed API answers 503 api_paused.')),
                        ('api_paused_retry_after', models.PositiveIntegerField(default=300)),
                        ('keyless_paused', models.BooleanField(default=False, help_text='Keyless check answers 503 keyless_paused.')),
                        ('keyless_paused_retry_after', models.PositiveIntegerField(default=300)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                    ],
                    options={
                        'db_table': 'accounts_serviceswitches',
                        'verbose_name': 'service switches',
                        'verbose_name_plural': 'service switches',
                    },
                ),
                migrations.CreateModel(
                    name='AccessLogEntry',
                    fields=[
                        ('environment', models.CharField(choices=[('test', 'test'), ('live', 'live')], max_length=4)),
                        ('id', models.CharField(max_length=40, primary_key=True, serialize=False)),
                        ('at', models.DateTimeField()),
                        ('method', models.CharField(max_length=8)),
                        ('path', models.CharField(max_length=500)),
                        ('status', models.PositiveSmallIntegerField()),
                        ('code', models.CharField(blank=True, max_length=40)),
                        ('request_id', models.CharField(max_length=128)),
                        ('key_prefix', models.CharField(max_length=32)),
                        ('client_ip', models.GenericIPAddressField(null=True)),
                        ('duration_ms', models.FloatField()),
                        ('units_charged', models.SmallIntegerField(default=0)),
                        ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='accounts.account')),
                    ],
                    options={
                        'db_table': 'accounts_accesslogentry',
                        'verbose_name_plural': 'access log entries',
                        'indexes': [models.Index(fields=['account', 'environment', 'at'], name='accounts_ac_account_6bf551_idx')],
                    },
                ),
                migrations.CreateModel(
                    name='IdempotencyRecord',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('environment', models.CharField(choices=[('test', 'test'), ('live', 'live')], max_length=4)),
                        ('key', models.CharField(max_length=255)),
                        ('fingerprint', models.CharField(max_length=64)),
                        ('state', models.CharField(default='running', max_length=10)),
                        ('owner', models.CharField(help_text='Process that claimed the key, released on shutdown.', max_length=64)),
                        ('status_code', models.PositiveSmallIntegerField(null=True)),
                        ('headers', models.JSONField(default=dict)),
                        ('body', models.BinaryField(null=True)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('expires_at', models.DateTimeField(db_index=True)),
                        ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='accounts.account')),
                    ],
                    options={
                        'db_table': 'accounts_idempotencyrecord',
                        'constraints': [models.UniqueConstraint(fields=('account', 'environment', 'key'), name='uniq_idempotency_key')],
                    },
                ),
                migrations.CreateModel(
                    name='MeteringEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('environment', models.CharField(choices=[('test', 'test'), ('live', 'live')], max_length=4)),
                        ('kind', models.CharField(max_length=12)),
                        ('at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('imo', models.CharField(blank=True, max_length=16)),
                        ('units', models.SmallIntegerField(default=1)),
                        ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='metering_events', to='accounts.account')),
                    ],
                    options={
                        'db_table': 'accounts_meteringevent',
                        'indexes': [models.Index(fields=['account', 'kind', 'at'], name='accounts_me_account_a78580_idx')],
                    },
                ),
                migrations.CreateModel(
                    name='QuotaCounter',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('environment', models.CharField(choices=[('test', 'test'), ('live', 'live')], max_length=4)),
                        ('kind', models.CharField(max_length=12)),
                        ('period', models.CharField(max_length=7)),
                        ('used', models.PositiveIntegerField(default=0)),
                        ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='quota_counters', to='accounts.account')),
                    ],
                    options={
                        'db_table': 'accounts_quotacounter',
                        'constraints': [models.UniqueConstraint(fields=('account', 'environment', 'kind', 'period'), name='uniq_quota_counter')],
                    },
                ),
            ],
        ),
    ]
