from django.apps import AppConfig


class MeteringConfig(AppConfig):
    name = "metering"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Signal receivers (key and account caches, switches) and the OpenAPI security scheme.
        from metering import auth, schema, switches  # noqa: F401
