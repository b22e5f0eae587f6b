from django.apps import AppConfig


class CargoConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "cargo"
