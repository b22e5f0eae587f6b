"""The demo world fixture of the screening tests, shared with exports."""
