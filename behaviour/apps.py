from django.apps import AppConfig


class BehaviourConfig(AppConfig):
    """Vessel behaviour from AIS: ingestion, the columnar position store, detectors and their events."""

    name = "behaviour"

    def ready(self) -> None:
        # Both imported once the app registry is ready: selectors import the models, and screening's
        # behaviour_block is where they are registered.
        from behaviour import selectors
        from screening import behaviour_block  # (see the comment above)

        behaviour_block.register(selectors.SCREENING_READER)
