"""Issue 30 item 3: the new-key page's curl example carries the whole key while it is shown, and works."""

from __future__ import annotations

import re
import shlex

import pytest
import requests

from tests.accounts.test_signup import mail_dir, sign_up_and_confirm  # noqa: F401  (mail_dir: its settings)
from tests.pages.conftest import shot

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_curl_command_on_the_new_key_page_holds_the_full_key_and_authenticates(
    pages,
    client,
    mail_dir,  # noqa: F811
):
    sign_up_and_confirm(client, mail_dir)
    tab = pages.open("/keys", cookies={"sessionid": client.cookies["sessionid"].value})
    tab.fill("input[name=label]", "curl check")
    tab.click("text=Create key")
    raw = tab.input_value("#raw-key")
    assert re.fullmatch(r"svc_test_[A-Za-z0-9]{40}", raw)
    command = tab.inner_text("main pre")
    assert raw in command and "…" not in command
    shot(tab, "new-key")

    # Run what the page says, as a person pasting it would (argument by argument, without a shell).
    words = shlex.split(command)
    assert words[0] == "curl"
    url = words[1]
    header = words[words.index("-H") + 1]
    name, value = header.split(": ", 1)
    answer = requests.get(url, headers={name: value}, timeout=30)
    assert answer.status_code == 200, answer.text[:500]
    assert answer.json()["environment"] == "test"
