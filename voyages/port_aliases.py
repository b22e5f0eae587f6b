"""Official local and former names of catalogue ports, written by this project as facts.

Each row: (UN/LOCODE, name). The catalogue's own names are the English forms the routing
network carries; these are the names people also use: the local official form (with its
letters: ø, å, æ, ß, ...) or a former official name. More rows arrive from the UN/LOCODE
"=" reference list through `refresh_sources --unlocode-aliases <file>`.
"""

from __future__ import annotations

PORT_ALIASES: tuple[tuple[str, str], ...] = (
    # Local official forms
    ("NOTOS", "Tromsø"),
    ("DKAAR", "Århus"),
    ("DKCPH", "København"),
    ("SEGOT", "Göteborg"),
    ("BEANR", "Antwerpen"),
    ("DEHAM", "Hamburg Hafen"),
    ("ITGOA", "Genova"),
    ("ITVCE", "Venezia"),
    ("ITNAP", "Napoli"),
    ("ITLIV", "Livorno"),
    ("PTLIS", "Lisboa"),
    ("PLGDN", "Gdańsk"),
    ("PLGDY", "Gdynia Port"),
    ("FRDKK", "Dunkerque"),
    ("ESCAD", "Cádiz"),
    ("ESACO", "A Coruña"),
    ("TRIST", "İstanbul"),
    ("GRPIR", "Peiraias"),
    ("ISREY", "Reykjavík"),
    ("FOTHO", "Tórshavn"),
    ("DEBRV", "Bremerhaven"),
    # Former official names
    ("INBOM", "Bombay"),
    ("INMAA", "Madras"),
    ("INCCU", "Calcutta"),
    ("INCOK", "Cochin"),
    ("VNSGN", "Saigon"),
    ("MMRGN", "Rangoon"),
    ("LKCMB", "Colombo Harbour"),
    ("ZAPLZ", "Gqeberha"),
    ("ITLIV", "Leghorn"),
    ("TRIST", "Constantinople"),
    ("CNCAN", "Canton"),
    ("CNTAO", "Tsingtao"),
    ("CNXMN", "Amoy"),
    ("IDJKT", "Batavia"),
    ("ILHFA", "Haifa Bay"),
    ("GHTKD", "Takoradi Harbour"),
)
