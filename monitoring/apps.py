from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "monitoring"

    def ready(self) -> None:
        # Imported once the app registry is ready: it imports the models.
        from monitoring import behaviour_flags

        behaviour_flags.connect()
