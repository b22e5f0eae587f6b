"""Corrections to the port list bundled with `searoute`, written by this project as facts.

The bundled list (3,962 rows) carries errors that reach users: a longitude with the wrong sign
puts Campden Park (St Vincent) in the Arabian Sea; some codes carry the wrong country prefix
(Duncannon, Ireland under `ID`, Indonesia); withdrawn country codes (AN Netherlands Antilles,
CS Serbia and Montenegro); a UN/LOCODE's degrees-and-minutes read as decimal degrees
(Port Alucroix 17.42 for 17°42'); garbled or misspelt names ("Port Aux Barqueport",
"Zeebgrugge", "Gotthenburg"); and the same port twice under a second, wrong code.

Each entry: locode -> Correction with a one-line reason. Coordinates are published UN/LOCODE
coordinates (degrees and minutes, converted); a dropped row is one that is not a seaport, or
the same place as a port the catalogue already carries under its right code (`merged_into`
gives the dropped row's name to that port as a searchable name). Applied when the catalogue is
built (voyages.ports.routable_ports); the bundled package itself is never modified.

`country_name(code)` is the name a port's `country` carries: the ISO 3166 short name from
pycountry (its common name where ISO's name is a "Name, qualifier" form), never the bundled
"United_kingdom" spelling.
"""

from __future__ import annotations

from dataclasses import dataclass

import pycountry


@dataclass(frozen=True)
class Correction:
    reason: str
    lat: float | None = None
    lon: float | None = None
    name: str | None = None
    country_code: str | None = None
    drop: bool = False
    merged_into: str | None = None  # dropped as a duplicate of this catalogue port


def _dm(degrees: int, minutes: int) -> float:
    """UN/LOCODE coordinates are degrees and minutes (DDMM); negative degrees for S and W."""
    sign = -1 if degrees < 0 else 1
    return round(sign * (abs(degrees) + minutes / 60), 6)


CORRECTIONS: dict[str, Correction] = {
    # --- Coordinates (UN/LOCODE published coordinates) ---
    "VCCRP": Correction(
        "UN/LOCODE VC CRP Campden Park 1310N 06114W; the bundled point has an east longitude (Arabian Sea)",
        lat=_dm(13, 10),
        lon=_dm(-61, 14),
    ),
    "VIPAX": Correction(
        "UN/LOCODE VI PAX Port Alucroix 1742N 06446W; the bundled point read the minutes as decimals (at sea)",
        lat=_dm(17, 42),
        lon=_dm(-64, 46),
    ),
    "RELPT": Correction(
        "UN/LOCODE RE LPT Le Port 2056S 05519E; the bundled point lies 40 km off Réunion's west coast",
        lat=_dm(-20, 56),
        lon=_dm(55, 19),
    ),
    "USPWM": Correction(
        "USPWM is Portland, Maine (UN/LOCODE 4339N 07015W); the bundled first row puts it at Portland, Oregon",
        lat=_dm(43, 39),
        lon=_dm(-70, 15),
    ),
    "CRSJO": Correction(
        "San José is Costa Rica's inland capital (UN/LOCODE 0956N 08405W), not a seaport; "
        "the bundled point lies in the Bay of Bengal",
        drop=True,
    ),
    # --- Country: the code's first two letters are not the port's country ---
    "IDCHN": Correction(
        "Duncannon is in County Wexford, Ireland (IE); the code's ID prefix is Indonesia", country_code="IE"
    ),
    "ZAPOR": Correction("Zaporizhzhia is in Ukraine (UA); the code's ZA prefix is South Africa", country_code="UA"),
    "CHERN": Correction("Chernihiv is in Ukraine (UA); the code's CH prefix is Switzerland", country_code="UA"),
    "ANBUB": Correction(
        "Bullen Bay is on Curaçao (CW since the Netherlands Antilles dissolved in 2010)", country_code="CW"
    ),
    "ANCRB": Correction("Caracas Bay is on Curaçao (CW since 2010)", country_code="CW"),
    "ANFUI": Correction("Fuik Bay is on Curaçao (CW since 2010)", country_code="CW"),
    "ANSMB": Correction("St Michiel's Bay is on Curaçao (CW since 2010)", country_code="CW"),
    "ANKRA": Correction("Kralendijk is on Bonaire (BQ since 2010)", country_code="BQ"),
    "ANEUX": Correction("Sint Eustatius is part of the Caribbean Netherlands (BQ since 2010)", country_code="BQ"),
    "ANPHI": Correction("Philipsburg is on Sint Maarten (SX since 2010)", country_code="SX"),
    "CSKOT": Correction(
        "Kotor is in Montenegro (ME, independent since 2006); CS was Serbia and Montenegro", country_code="ME"
    ),
    "CSZEL": Correction("Zelenika is in Montenegro (ME, independent since 2006)", country_code="ME"),
    # --- The same port twice: the row under a wrong or withdrawn code is dropped ---
    "ASPGO": Correction("'Panama' under AS (American Samoa): the point is Balboa, 3 km away (PABLB)", drop=True),
    "USGUA": Correction("Guam under a US code: the point is Apra Harbour, 4 km away (GUAPR)", drop=True),
    "TKMRW": Correction("Turkmenbashy under TK (Tokelau): the port is TMKRW, 10 km away", drop=True),
    "CSBAR": Correction("Bar under the withdrawn CS code: the port is MEBAR, 2 km away", drop=True),
    "ANWIL": Correction("Willemstad under the withdrawn AN code: the port is CWWIL, 2 km away", drop=True),
    "MOMFM": Correction("Macau twice (MFM is Macau's airport code): the port is MOMAC, same point", drop=True),
    "USMVI": Correction("'Mellville' is a misspelling of Melville, RI: the port is USZMV, 0.6 km away", drop=True),
    "USPSU": Correction("'Pensauken' is a misspelling of Pennsauken, NJ: the port is USPPS, 4 km away", drop=True),
    "GLUPE": Correction("'Upernivik' is a misspelling of Upernavik: the port is GLJUV, 8 km away", drop=True),
    "TNAST": Correction("'Ashtart Terminaashta' is a garbled Ashtart Terminal: the terminal is TNASH", drop=True),
    "GBGAN": Correction(
        "Garlieston twice: GBGAN's point read the minutes as decimals (at sea); the port is GBGIS", drop=True
    ),
    "SOMOG": Correction("Mogadiscio (Italian form) is Mogadishu, 2.5 km away (SOMGQ)", drop=True, merged_into="SOMGQ"),
    "KHKOS": Correction(
        "Kompong Som is Sihanoukville's former name, 4 km away (KHSIH)", drop=True, merged_into="KHSIH"
    ),
    "ALVLO": Correction("Valona (Italian form) is Vlorë, 6 km away (ALVOA)", drop=True, merged_into="ALVOA"),
    "IDMAC": Correction(
        "Macassar is Makassar, 4 km from IDUPG (Ujung Pandang, its former name)", drop=True, merged_into="IDUPG"
    ),
    "INMAD": Correction("Madras is Chennai's former name; the port is INMAA", drop=True, merged_into="INMAA"),
    "QAUMS": Correction("Umm Said is Mesaieed's former name; the port is QAMES", drop=True, merged_into="QAMES"),
    "ESSEV": Correction("Seville is Sevilla (ESSVQ), the same point", drop=True, merged_into="ESSVQ"),
    "BZBZC": Correction("Belize City twice: the port is BZBZE, 1 km away", drop=True, merged_into="BZBZE"),
    "CNHKG": Correction(
        "Hong Kong under a CN code (its ISO 3166 code is HK): the port is HKHKG, 7 km away",
        drop=True,
        merged_into="HKHKG",
    ),
    # --- Names: misspelt, garbled or in capitals ---
    "CAPAB": Correction(
        "CAPAB is Port Alberni, BC (the point is there); the bundled name is garbled", name="Port Alberni"
    ),
    "BEZEE": Correction("misspelt 'Zeebgrugge'", name="Zeebrugge"),
    "BRRIO": Correction("misspelt 'Rio De Jan Eiro'", name="Rio de Janeiro"),
    "SEGOT": Correction("misspelt 'Gotthenburg'", name="Gothenburg"),
    "TRBDM": Correction("misspelt 'Bandirmar'", name="Bandirma"),
    "JPHMD": Correction("misspelt 'Hamanda'", name="Hamada"),
    "CNTZO": Correction("misspelt 'Taizhoung'", name="Taizhou"),
    "GBGIS": Correction("misspelt 'Garieston'", name="Garlieston"),
    "IDPPO": Correction("misspelt 'Palapo'", name="Palopo, Sulawesi"),
    "IDPUM": Correction("misspelt 'Pomala'", name="Pomalaa, Sulawesi"),
    "NOKRS": Correction("garbled 'Kristiansand S.Chris'", name="Kristiansand"),
    "NOKRN": Correction("garbled 'Kristiansund N.Chris'", name="Kristiansund"),
    "CNCFD": Correction("'Caofeidian Pt ' with a trailing space", name="Caofeidian"),
    "YTLON": Correction("name in capitals", name="Longoni"),
    "MEBAR": Correction("name in capitals", name="Bar"),
    "RUBNK": Correction("name in capitals", name="Bronka"),
    "MGTOL": Correction("'Toleary' is a garbled Tuléar; the port's name is Toliara", name="Toliara"),
    "CNZHA": Correction("misspelt 'Zhangjiang': the port at 21.2°N 110.4°E is Zhanjiang", name="Zhanjiang"),
    "ARCOR": Correction("garbled 'Comodoro Rivadacomod'", name="Comodoro Rivadavia"),
    "KRMOK": Correction("'Mogpo' is not a romanisation in use; the port's name is Mokpo", name="Mokpo"),
}

# Ports that lie more than PORT_NEIGHBOUR_KM from any other port of their own country, checked
# one by one (tests/voyages/test_port_catalogue_quality.py): remote territories and islands.
REMOTE_OWN_TERRITORY: dict[str, str] = {
    "ASPPG": "Pago Pago, Tutuila: American Samoa's only port",
    "KITNQ": "Teraina (Washington Island), Line Islands of Kiribati",
    "SHSHN": "Jamestown, St Helena; the other St Helena port listed is on Ascension",
    "SHASI": "Georgetown, Ascension Island (St Helena, Ascension and Tristan da Cunha)",
    "CAIQL": "Iqaluit, Baffin Island, Nunavut",
    "GUAPR": "Apra Harbour, Guam's only port",
}

# Ports on islands smaller than the 1 km land mask resolves (no land cell within 200 nm).
BELOW_MASK_ISLANDS: dict[str, str] = {
    "MVMLE": "Malé, Maldives: coral atolls below the mask's resolution",
    "NRYAR": "Yaren, Nauru: a 21 km² island",
    "USCAI": "Castle Island, Alaska (as bundled)",
}

_COUNTRY_NAME_OVERRIDES = {
    "CD": "Democratic Republic of the Congo",
    "CG": "Republic of the Congo",
    "FM": "Micronesia",
    "PS": "Palestine",
    "VI": "U.S. Virgin Islands",
    "VG": "British Virgin Islands",
}


def country_name(code: str) -> str:
    """The country's proper name for a 2-letter code (ISO 3166 via pycountry)."""
    code = code.upper()
    if code in _COUNTRY_NAME_OVERRIDES:
        return _COUNTRY_NAME_OVERRIDES[code]
    country = pycountry.countries.get(alpha_2=code) or pycountry.historic_countries.get(alpha_2=code)
    if country is None:
        return code
    common = getattr(country, "common_name", None)
    if common:
        return common
    name = country.name
    if ", " in name and not name.startswith("Bonaire"):
        official = getattr(country, "official_name", None)
        if official:
            return official
    return name


def apply(locode: str, name: str, lat: float, lon: float) -> tuple[str, str, float, float] | None:
    """(country_code, name, lat, lon) after the correction for `locode`, or None when dropped."""
    fix = CORRECTIONS.get(locode)
    country_code = locode[:2]
    if fix is None:
        return country_code, name.strip(), lat, lon
    if fix.drop:
        return None
    return (
        fix.country_code or country_code,
        fix.name or name.strip(),
        fix.lat if fix.lat is not None else lat,
        fix.lon if fix.lon is not None else lon,
    )
