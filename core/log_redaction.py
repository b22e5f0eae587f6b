"""API keys never reach a log line: a key sent by mistake (in a URL, say) is redacted from every
record that passes the filter (the console handler's, and uvicorn's access log for /mcp)."""

from __future__ import annotations

import logging
import re

KEY_PATTERN = re.compile(r"svc_(test|live)_[A-Za-z0-9]{40}")


def redact(value: object) -> object:
    return KEY_PATTERN.sub(r"svc_\1_[redacted]", value) if isinstance(value, str) else value


class RedactKeys(logging.Filter):
    """Replaces every API key in a record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {name: redact(arg) for name, arg in record.args.items()}
        return True
