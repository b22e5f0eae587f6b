from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The runtime every app builds on: the API framework, outbound HTTP, leases, task sending.

    It imports no app of the service: everything above it may import it."""

    name = "core"
