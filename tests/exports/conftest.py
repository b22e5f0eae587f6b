"""The demo world fixture of the screening tests, shared with exports."""

from tests.screening.conftest import demo_world  # noqa: F401
