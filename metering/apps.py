from django.apps import AppConfig


class MeteringConfig(AppConfig):
    name = "metering"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from metering import switches  # noqa: F401  (signal receivers)
