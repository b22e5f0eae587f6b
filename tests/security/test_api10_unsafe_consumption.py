"""API10 Unsafe Consumption of APIs: what the service reads from third parties cannot make it read local
files, expand without bound, or replace a good copy with a damaged one.

Source files (OFAC, UN and EU XML among them) are parsed by screening/sources with the standard
library's ElementTree over expat, which never fetches external entities and (expat 2.4 and later)
stops entity expansion that amplifies beyond its limits. Elsewhere: a truncated or foreign edition is
refused and the previous copy keeps serving (tests/screening/test_refresh_truth.py), bodies from
outside are capped and timed (tests/platform/test_outbound.py), a webhook receiver's answer is kept to
its first 1,024 bytes (tests/webhooks/test_deliveries.py).
"""

from __future__ import annotations

import time

import pytest

from screening.sources.formats import xml_root

LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<CONSOLIDATED_LIST>&lol9;</CONSOLIDATED_LIST>"""


def test_an_entity_expansion_bomb_in_a_source_file_is_refused_quickly():
    started = time.monotonic()
    with pytest.raises(ValueError, match="not XML"):
        xml_root(LAUGHS, "CONSOLIDATED_LIST", "the UN consolidated list")
    assert time.monotonic() - started < 2


def test_an_external_entity_in_a_source_file_never_reads_a_local_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("LOCAL-FILE-CONTENT")
    document = (
        f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]>'
        "<CONSOLIDATED_LIST><NAME>&x;</NAME></CONSOLIDATED_LIST>"
    ).encode()
    try:
        root = xml_root(document, "CONSOLIDATED_LIST", "the UN consolidated list")
    except ValueError:
        return  # refused outright: nothing was read
    assert "LOCAL-FILE-CONTENT" not in "".join(root.itertext())
