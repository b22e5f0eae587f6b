from django.apps import AppConfig


class PortalConfig(AppConfig):
    """The self-serve pages: sign-up, log-in, keys, and each key's usage and access log."""

    name = "portal"
