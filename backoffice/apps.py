from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    name = "backoffice"
    verbose_name = "Back office"
    default_auto_field = "django.db.models.BigAutoField"
