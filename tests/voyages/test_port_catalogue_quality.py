"""Port catalogue quality (issue 12, items 22-25): country names, corrected bundled data,
current and former names of the busiest ports, and shared names that are never auto-selected."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from voyages import port_corrections, routing
from voyages.landmask import is_land
from voyages.ports import MATCH_EXACT_NAME, _compact, build_catalogue, corrected_bundled_ports

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# A port's nearest other port of its own country lies within this distance (coasts and
# archipelagos carry ports closer than this), unless it is listed in REMOTE_OWN_TERRITORY.
PORT_NEIGHBOUR_KM = 1000.0
# Every port lies within the EEZ breadth of land (1 km land mask), unless listed in BELOW_MASK_ISLANDS.
EEZ_BREADTH_KM = 200 * 1.852


@pytest.fixture(scope="module")
def catalogue():
    return build_catalogue()


def km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def land_within(lat: float, lon: float, radius_km: float) -> bool:
    """Any land cell of the 1 km mask within radius_km (rings every few km, then wider)."""
    if is_land(lat, lon):
        return True
    for ring in [1, 2, 3, 5, 8, 12, 18, 25, 35, 50, 75, 100, 150, 200, 250, 300, radius_km]:
        if ring > radius_km:
            break
        angles = np.linspace(0, 2 * math.pi, max(24, int(ring * 2)), endpoint=False)
        lats = np.clip(lat + ring / 111.2 * np.sin(angles), -89.9, 89.9)
        lons = lon + ring / (111.2 * max(0.05, math.cos(math.radians(lat)))) * np.cos(angles)
        lons = (lons + 180) % 360 - 180
        if np.any(is_land(lats, lons)):
            return True
    return False


# --- item 22 -------------------------------------------------------------------------------


def test_country_is_the_countrys_proper_name(catalogue, client):
    for port in catalogue.ports:
        assert "_" not in port.country, port
        assert port.country == port_corrections.country_name(port.country_code)
    assert catalogue.get_port("GBSOU").country == "United Kingdom"
    assert catalogue.get_port("USHOU").country == "United States"
    assert catalogue.get_port("AEJEA").country == "United Arab Emirates"
    assert catalogue.get_port("KRPUS").country == "South Korea"
    assert catalogue.get_port("CIABJ").country == "Côte d'Ivoire"
    first = client.get("/api/v1/ports", {"query": "Southampton"}).json()["ports"][0]
    assert first["country"] == "United Kingdom" and first["country_code"] == "GB"


# --- item 23 -------------------------------------------------------------------------------


def test_every_catalogue_port_lies_near_its_own_countrys_coast(catalogue):
    """Documented heuristic (no country polygons here): each port is (a) within the 200 nm EEZ
    breadth of land and (b) within PORT_NEIGHBOUR_KM of another port of its own country in the
    corrected bundled list, or a remote territory checked one by one (REMOTE_OWN_TERRITORY)."""
    by_country: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for locode, _name, country_code, lat, lon, _weight in corrected_bundled_ports():
        by_country[country_code].append((locode, lat, lon))
    far_from_own, far_from_land = [], []
    for port in catalogue.ports:
        others = [(la, lo) for code, la, lo in by_country[port.country_code] if code != port.locode]
        nearest = min((km(port.lat, port.lon, la, lo) for la, lo in others), default=None)
        if (
            nearest is not None
            and nearest > PORT_NEIGHBOUR_KM
            and port.locode not in port_corrections.REMOTE_OWN_TERRITORY
        ):
            far_from_own.append((port.locode, port.name, round(nearest)))
        if port.locode not in port_corrections.BELOW_MASK_ISLANDS and not land_within(
            port.lat, port.lon, EEZ_BREADTH_KM
        ):
            far_from_land.append((port.locode, port.name))
    assert far_from_own == []
    assert far_from_land == []


def test_the_known_bundled_errors_are_corrected(catalogue):
    campden = catalogue.get_port("VCCRP")
    assert campden is not None and 13.0 < campden.lat < 13.3 and -61.4 < campden.lon < -61.1
    assert catalogue.get_port("CRSJO") is None  # Costa Rica's inland capital, once in the Bay of Bengal
    assert catalogue.get_port("IDCHN").country_code == "IE"
    assert catalogue.get_port("ANPHI").country_code == "SX"
    assert catalogue.get_port("CSKOT").country_code == "ME"
    maine = catalogue.get_port("USPWM")
    assert maine.lon > -71 and maine.lat < 44  # Portland, Maine, not Oregon
    for code in ("ASPGO", "USGUA", "TKMRW", "ANWIL", "CSBAR", "MOMFM"):
        assert catalogue.get_port(code) is None, code


def test_no_catalogue_name_is_misspelt_garbled_or_in_capitals(catalogue):
    names = {port.name for port in catalogue.ports}
    for wrong in (
        "Zeebgrugge",
        "Rio De Jan Eiro",
        "Gotthenburg",
        "Port Aux Barqueport",
        "Ashtart Terminaashta",
        "Bandirmar",
        "Mellville",
        "Pensauken",
        "Upernivik",
        "Garieston",
        "Kristiansand S.Chris",
        "BAR",
    ):
        assert wrong not in names
    assert catalogue.get_port("BEZEE").name == "Zeebrugge"
    assert catalogue.get_port("CAPAB").name == "Port Alberni"
    for port in catalogue.ports:
        assert port.name == port.name.strip() and "  " not in port.name, port
        assert not (port.name.isupper() and len(port.name) > 3), port


def test_rotterdam_singapore_passes_no_caribbean_or_central_american_port(catalogue):
    """The nearest-port EEZ approximation would attribute route points to a misplaced port's country."""
    route = routing.compute_route(catalogue.get_port("NLRTM"), catalogue.get_port("SGSIN"))
    samples = route.coordinates[::5]
    near = set()
    for port in catalogue.ports:
        for lon, lat in samples:
            if abs(lat - port.lat) < 4 and km(lat, ((lon + 180) % 360) - 180, port.lat, port.lon) < 370:
                near.add(port.country_code)
                break
    assert not near & {"VC", "CR", "AG", "BB", "KN", "LC", "GD", "PA", "JM"}


# --- item 24 -------------------------------------------------------------------------------

# Today's and former names of the world's busiest ports: the lookup finds each at rank 1.
BUSY_PORT_NAMES = [
    ("Mumbai", "INBOM"),
    ("Bombay", "INBOM"),
    ("Chennai", "INMAA"),
    ("Madras", "INMAA"),
    ("Kolkata", "INCCU"),
    ("Calcutta", "INCCU"),
    ("Kochi", "INCOK"),
    ("Cochin", "INCOK"),
    ("Thoothukudi", "INTUT"),
    ("Tuticorin", "INTUT"),
    ("Mormugao", "INMRM"),
    ("Deendayal", "INIXY"),
    ("Kandla", "INIXY"),
    ("Kamarajar", "INENR"),
    ("Mangaluru", "INIXE"),
    ("Nhava Sheva", "INNSA"),
    ("Jawaharlal Nehru Port", "INNSA"),
    ("Mundra", "INMUN"),
    ("Visakhapatnam", "INVTZ"),
    ("Chattogram", "BDCGP"),
    ("Chittagong", "BDCGP"),
    ("Yangon", "MMRGN"),
    ("Rangoon", "MMRGN"),
    ("Ho Chi Minh City", "VNSGN"),
    ("Saigon", "VNSGN"),
    ("Hai Phong", "VNHPH"),
    ("Da Nang", "VNDAD"),
    ("Colombo", "LKCMB"),
    ("Karachi", "PKKHI"),
    ("Port Qasim", "PKBQM"),
    ("Busan", "KRPUS"),
    ("Pusan", "KRPUS"),
    ("Incheon", "KRINC"),
    ("Chemulpo", "KRINC"),
    ("Ulsan", "KRUSN"),
    ("Kaohsiung", "TWKHH"),
    ("Takao", "TWKHH"),
    ("Keelung", "TWKEL"),
    ("Guangzhou", "CNCAN"),
    ("Canton", "CNCAN"),
    ("Qingdao", "CNTAO"),
    ("Tsingtao", "CNTAO"),
    ("Xiamen", "CNXMN"),
    ("Amoy", "CNXMN"),
    ("Tianjin", "CNTSN"),
    ("Tientsin", "CNTSN"),
    ("Shantou", "CNSWA"),
    ("Swatow", "CNSWA"),
    ("Dalian", "CNDLC"),
    ("Dairen", "CNDLC"),
    ("Yantai", "CNYNT"),
    ("Chefoo", "CNYNT"),
    ("Ningbo", "CNNGB"),
    ("Shanghai", "CNSHA"),
    ("Shenzhen", "CNSZX"),
    ("Hong Kong", "HKHKG"),
    ("Singapore", "SGSIN"),
    ("Port Klang", "MYPKG"),
    ("Port Swettenham", "MYPKG"),
    ("Tanjung Pelepas", "MYTPP"),
    ("Jakarta", "IDJKT"),
    ("Batavia", "IDJKT"),
    ("Makassar", "IDUPG"),
    ("Ujung Pandang", "IDUPG"),
    ("Cilacap", "IDTJI"),
    ("Surabaya", "IDSUB"),
    ("Sihanoukville", "KHSIH"),
    ("Kompong Som", "KHSIH"),
    ("Laem Chabang", "THLCH"),
    ("Manila", "PHMNL"),
    ("Tokyo", "JPTYO"),
    ("Yokohama", "JPYOK"),
    ("Kobe", "JPUKB"),
    ("Nagoya", "JPNGO"),
    ("Jebel Ali", "AEJEA"),
    ("Khor Fakkan", "AEKLF"),
    ("Jeddah", "SAJED"),
    ("Jiddah", "SAJED"),
    ("Dammam", "SADMN"),
    ("Salalah", "OMSLL"),
    ("Mesaieed", "QAMES"),
    ("Umm Said", "QAMES"),
    ("Bandar Abbas", "IRBND"),
    ("Khorramshahr", "IRKHO"),
    ("Mohammerah", "IRKHO"),
    ("Istanbul", "TRIST"),
    ("Constantinople", "TRIST"),
    ("İzmir", "TRIZM"),
    ("Smyrna", "TRIZM"),
    ("Iskenderun", "TRISK"),
    ("Alexandretta", "TRISK"),
    ("Trabzon", "TRTZX"),
    ("Trebizond", "TRTZX"),
    ("Mersin", "TRMER"),
    ("Ambarlı", "TRAMR"),
    ("Piraeus", "GRPIR"),
    ("Thessaloniki", "GRSKG"),
    ("Salonika", "GRSKG"),
    ("Gdańsk", "PLGDN"),
    ("Danzig", "PLGDN"),
    ("Szczecin", "PLSZZ"),
    ("Stettin", "PLSZZ"),
    ("Świnoujście", "PLSWI"),
    ("Swinemünde", "PLSWI"),
    ("Kaliningrad", "RUKGD"),
    ("Königsberg", "RUKGD"),
    ("Klaipėda", "LTKLJ"),
    ("Memel", "LTKLJ"),
    ("Tallinn", "EETLL"),
    ("Reval", "EETLL"),
    ("Leningrad", "RULED"),
    ("Novorossiysk", "RUNVS"),
    ("Vladivostok", "RUVVO"),
    ("Odesa", "UAODS"),
    ("Odessa", "UAODS"),
    ("Chornomorsk", "UAILK"),
    ("Illichivsk", "UAILK"),
    ("Oslo", "NOOSL"),
    ("Christiania", "NOOSL"),
    ("Gothenburg", "SEGOT"),
    ("Göteborg", "SEGOT"),
    ("Helsinki", "FIHEL"),
    ("Helsingfors", "FIHEL"),
    ("Turku", "FITKU"),
    ("Åbo", "FITKU"),
    ("København", "DKCPH"),
    ("Copenhagen", "DKCPH"),
    ("Århus", "DKAAR"),
    ("Rotterdam", "NLRTM"),
    ("Antwerp", "BEANR"),
    ("Antwerpen", "BEANR"),
    ("Zeebrugge", "BEZEE"),
    ("Hamburg", "DEHAM"),
    ("Bremerhaven", "DEBRV"),
    ("Lübeck", "DELBC"),
    ("Le Havre", "FRLEH"),
    ("Dunkerque", "FRDKK"),
    ("Marseille", "FRMRS"),
    ("Marseilles", "FRMRS"),
    ("Genoa", "ITGOA"),
    ("Genova", "ITGOA"),
    ("Livorno", "ITLIV"),
    ("Leghorn", "ITLIV"),
    ("Venice", "ITVCE"),
    ("Venezia", "ITVCE"),
    ("Gioia Tauro", "ITGIT"),
    ("Trieste", "ITTRS"),
    ("Rijeka", "HRRJK"),
    ("Fiume", "HRRJK"),
    ("Koper", "SIKOP"),
    ("Capodistria", "SIKOP"),
    ("Durrës", "ALDRZ"),
    ("Durazzo", "ALDRZ"),
    ("Vlorë", "ALVOA"),
    ("Valona", "ALVOA"),
    ("Lisbon", "PTLIS"),
    ("Lisboa", "PTLIS"),
    ("Sines", "PTSIE"),
    ("Algeciras", "ESALG"),
    ("Valencia", "ESVLC"),
    ("Barcelona", "ESBCN"),
    ("Felixstowe", "GBFXT"),
    ("Southampton", "GBSOU"),
    ("Constanța", "ROCND"),
    ("Alexandria", "EGALY"),
    ("Port Said", "EGPSD"),
    ("Damietta", "EGDAM"),
    ("Tangier", "MATNG"),
    ("Algiers", "DZALG"),
    ("Annaba", "DZAAE"),
    ("Bône", "DZAAE"),
    ("Skikda", "DZSKI"),
    ("Philippeville", "DZSKI"),
    ("Bejaia", "DZBJA"),
    ("Bougie", "DZBJA"),
    ("Mogadishu", "SOMGQ"),
    ("Mogadiscio", "SOMGQ"),
    ("Djibouti", "DJJIB"),
    ("Mombasa", "KEMBA"),
    ("Dar es Salaam", "TZDAR"),
    ("Maputo", "MZMPM"),
    ("Lourenço Marques", "MZMPM"),
    ("Toamasina", "MGTOA"),
    ("Tamatave", "MGTOA"),
    ("Toliara", "MGTOL"),
    ("Antsiranana", "MGDIE"),
    ("Diego-Suarez", "MGDIE"),
    ("Namibe", "AOMSZ"),
    ("Moçâmedes", "AOMSZ"),
    ("Nouadhibou", "MRNDB"),
    ("Port-Étienne", "MRNDB"),
    ("Durban", "ZADUR"),
    ("Gqeberha", "ZAPLZ"),
    ("Port Elizabeth", "ZAPLZ"),
    ("Lagos", "NGLOS"),
    ("Tema", "GHTEM"),
    ("Sekondi-Takoradi", "GHTKD"),
    ("Abidjan", "CIABJ"),
    ("Santos", "BRSSZ"),
    ("Rio de Janeiro", "BRRIO"),
    ("Paranaguá", "BRPNG"),
    ("Itajaí", "BRITJ"),
    ("Buenos Aires", "ARBUE"),
    ("Montevideo", "UYMVD"),
    ("Callao", "PECLL"),
    ("Valparaíso", "CLVAP"),
    ("Guayaquil", "ECGYE"),
    ("Cartagena", "COCTG"),
    ("Colón", "PAONX"),
    ("Aspinwall", "PAONX"),
    ("Balboa", "PABLB"),
    ("Santo Tomás de Castilla", "GTSTC"),
    ("Puerto Limón", "CRLIO"),
    ("La Habana", "CUHAV"),
    ("Havana", "CUHAV"),
    ("Kingston", "JMKIN"),
    ("Lázaro Cárdenas", "MXLZC"),
    ("Veracruz", "MXVER"),
    ("Houston", "USHOU"),
    ("New York", "USNYC"),
    ("Long Beach", "USLGB"),
    ("Los Angeles", "USLAX"),
    ("Savannah", "USSAV"),
    ("Vancouver", "CAVAN"),
    ("Montréal", "CAMTR"),
    ("Halifax", "CAHAL"),
    ("Prince Rupert", "CAPRR"),
    ("Melbourne", "AUMEL"),
    ("Sydney", "AUSYD"),
    ("Fremantle", "AUFRE"),
    ("Tauranga", "NZTRG"),
    ("Auckland", "NZAKL"),
    ("Nouméa", "NCNOU"),
    ("Aktau", "KZAAU"),
    ("Shevchenko", "KZAAU"),
    ("Turkmenbashy", "TMKRW"),
    ("Krasnovodsk", "TMKRW"),
    ("Baku", "AZBAK"),
    ("Malé", "MVMLE"),
]


@pytest.mark.parametrize(("query", "locode"), BUSY_PORT_NAMES)
def test_todays_and_former_names_of_busy_ports_find_them_first(catalogue, query, locode):
    first = catalogue.search(query, 5)[0]
    assert first.port.locode == locode, [(m.port.locode, m.port.name, m.match_type) for m in catalogue.search(query, 5)]


@pytest.mark.parametrize(
    ("query", "locode"),
    [
        ("Kolkata", "INCCU"),
        ("Busan", "KRPUS"),
        ("Smyrna", "TRIZM"),
        ("Danzig", "PLGDN"),
        ("Chattogram", "BDCGP"),
        ("Leningrad", "RULED"),
        ("Makassar", "IDUPG"),
        ("Namibe", "AOMSZ"),
        ("Christiania", "NOOSL"),
    ],
)
def test_a_name_only_one_port_holds_is_exact(client, query, locode):
    first = client.get("/api/v1/ports", {"query": query}).json()["ports"][0]
    assert first["locode"] == locode and first["match_type"] == "exact_name" and first["match_score"] == 95


# --- item 25 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected_order"),
    [
        ("Portland", ["USPWM", "AUPTJ", "GBPTL"]),
        ("Victoria", ["CAVIC", "CMVCC"]),
        ("St Petersburg", ["RULED", "USSPT", "USSPG"]),
        ("Saint Petersburg", ["RULED", "USSPT", "USSPG"]),
        ("St. Petersburg", ["RULED", "USSPT", "USSPG"]),
    ],
)
def test_a_name_several_ports_share_is_never_exact_and_ranks_by_weight(client, query, expected_order):
    ports = client.get("/api/v1/ports", {"query": query}).json()["ports"]
    assert all(p["match_type"] != MATCH_EXACT_NAME for p in ports)
    assert [p["locode"] for p in ports[: len(expected_order)]] == expected_order
    assert {p["match_type"] for p in ports[: len(expected_order)]} == {"prefix"}


def test_no_shared_name_anywhere_in_the_catalogue_is_auto_selectable(catalogue):
    holders: dict[str, set[str]] = defaultdict(set)
    for port in catalogue.ports:
        holders[_compact(port.name)].add(port.locode)
    shared = [
        next(p.name for p in catalogue.ports if p.locode in codes) for codes in holders.values() if len(codes) > 1
    ]
    assert len(shared) > 20
    for name in shared:
        assert all(m.match_type != MATCH_EXACT_NAME for m in catalogue.search(name, 50)), name


def test_rotterdam_singapore_crosses_no_caribbean_eez_in_the_port_based_approximation():
    from voyages import routing
    from voyages.layers.eez import EezLayer
    from voyages.layers.geo import RouteInput
    from voyages.ports import get_catalogue

    catalogue = get_catalogue()
    origin, destination = catalogue.get_port("NLRTM"), catalogue.get_port("SGSIN")
    route = routing.compute_route(origin, destination)
    owners = EezLayer.from_ports().countries_along(RouteInput(list(route.coordinates), route.distance_nm, "NL", "SG"))
    assert "VC" not in set(owners)  # Campden Park (St Vincent) once sat in the Arabian Sea
