"""Issue 12 item 29: the voyage report map draws coasts finely enough that the Dover Strait, Gibraltar,
the Suez Canal and Bab-el-Mandeb show as water between two drawn coasts on a Rotterdam-Singapore map;
shares on the report page read as percentages."""

from __future__ import annotations

import re

import pytest

from voyages import report_map, routing
from voyages.ports import get_catalogue

# (name, a point in the water, a point on each shore) as (lon, lat)
CHOKEPOINTS = [
    ("Dover Strait", (1.45, 51.0), (0.9, 51.25), (2.0, 50.8)),
    ("Strait of Gibraltar", (-5.6, 35.97), (-5.6, 36.25), (-5.6, 35.7)),
    ("Bab-el-Mandeb", (43.38, 12.55), (43.9, 13.1), (42.9, 12.0)),
    ("Gulf of Suez", (32.9, 29.1), (33.5, 29.5), (32.3, 29.3)),
]


def _land_pixels(svg: str) -> set[tuple[int, int]]:
    """Map units covered by land, read from the SVG (rects, or path runs M x y h w v h H x z)."""
    covered: set[tuple[int, int]] = set()

    def add(x: float, y: float, w: float, h: float) -> None:
        for row in range(int(y), int(y + h - 0.31) + 1):
            for column in range(int(x), int(x + w - 0.31) + 1):
                covered.add((column, row))

    for x, y, w, h in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/>', svg):
        add(float(x), float(y), float(w), float(h))
    for x, y, w, h in re.findall(r"M([\d.]+) ([\d.]+)h([\d.]+)v([\d.]+)H[\d.]+z", svg):
        add(float(x), float(y), float(w), float(h))
    return covered


@pytest.fixture(scope="module")
def rtm_sin_coords(django_db_setup, django_db_blocker) -> list[tuple[float, float]]:
    with django_db_blocker.unblock():
        catalogue = get_catalogue()
        origin, destination = catalogue.search("NLRTM", 1)[0].port, catalogue.search("SGSIN", 1)[0].port
    route = routing.compute_route(origin, destination)
    return [tuple(point) for point in routing.route_geojson(route)["geometry"]["coordinates"]]


@pytest.fixture(scope="module")
def rtm_sin(rtm_sin_coords):
    coords = rtm_sin_coords
    svg = report_map.route_svg(coords)
    west, south, east, north = report_map._bounds(coords)

    def pixel(lon: float, lat: float) -> tuple[int, int]:
        return (
            int((lon - west) / (east - west) * report_map.WIDTH),
            int((north - lat) / (north - south) * report_map.HEIGHT),
        )

    return svg, pixel


@pytest.mark.parametrize(("name", "water", "shore_a", "shore_b"), CHOKEPOINTS, ids=[c[0] for c in CHOKEPOINTS])
def test_each_chokepoint_is_water_between_two_drawn_coasts(rtm_sin, name, water, shore_a, shore_b):
    svg, pixel = rtm_sin
    land = _land_pixels(svg)
    assert pixel(*shore_a) in land and pixel(*shore_b) in land, f"{name}: a shore is not drawn"
    assert pixel(*water) not in land, f"{name}: the passage is drawn as land"


def test_the_suez_canal_is_drawn_as_water(rtm_sin):
    svg, pixel = rtm_sin
    match = re.search(r'<polyline class="canal" points="([^"]+)"><title>Suez Canal</title>', svg)
    assert match, "the Suez Canal is not drawn"
    points = [tuple(map(float, p.split(","))) for p in match.group(1).split()]
    ismailia = pixel(32.3, 30.6)  # the canal's middle, land in the 1 km raster
    assert min(abs(x - ismailia[0]) + abs(y - ismailia[1]) for x, y in points) <= 2
    port_said, suez = pixel(32.30, 31.27), pixel(32.57, 29.93)
    assert min(abs(x - port_said[0]) + abs(y - port_said[1]) for x, y in points) <= 2
    assert min(abs(x - suez[0]) + abs(y - suez[1]) for x, y in points) <= 2


def test_a_world_scale_map_stays_small(rtm_sin):
    svg, _ = rtm_sin
    assert len(svg) < 250_000


SHARE = re.compile(r"^(<0\.1|\d{1,3}(\.\d)?)%$")


def _share_cells(html: str) -> list[str]:
    """Every cell under a header that starts with "Share" on the page."""
    cells: list[str] = []
    for table in re.findall(r"<table>(.*?)</table>", html, re.S):
        headers = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
        columns = [i for i, h in enumerate(headers) if h.lower().startswith("share")]
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]:
            tds = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            for i in columns:
                if i < len(tds):
                    text = re.sub(r"<[^>]+>", " ", tds[i])
                    cells.append(re.sub(r"\s+", " ", text).strip().split(" ")[-1])
    return cells


@pytest.mark.django_db
def test_every_share_on_the_voyage_report_reads_as_a_percentage(issue_key, client, keyed, settings):
    key = issue_key("test")
    body = client.post(
        "/api/v1/voyage-assessments",
        data={"route": {"origin": "NLRTM", "destination": "SGSIN"}},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="shares-1",
        **keyed(key),
    ).json()
    assert body["jwc_intersected_areas"] and body["eez_transit"]
    html = client.get(body["report_url"][len(settings.PUBLIC_BASE_URL) :]).content.decode()
    cells = _share_cells(html)
    expected = len(body["drivers"]) + len(body["jwc_intersected_areas"]) + len(body["eez_transit"])
    assert len(cells) == expected, cells
    bad = [cell for cell in cells if not SHARE.match(cell)]
    assert bad == [], bad
    first_area = body["jwc_intersected_areas"][0]
    assert f"<td>{first_area['name']}</td><td>{first_area['risk_level']}</td><td>" in html
    assert str(first_area["route_fraction"]) not in re.findall(r"<td>([^<]*)</td>", html)


@pytest.mark.parametrize(
    ("fraction", "text"), [(0.0312, "3.1%"), (0.5, "50%"), (1.0, "100%"), (0.0004, "<0.1%"), (0.0, "0%")]
)
def test_percent_reads_fractions_as_people_do(fraction, text):
    from voyages.pages.views import percent

    assert percent(fraction) == text


def test_the_route_map_draws_the_listed_areas_under_the_route_and_the_port_names_over_it(rtm_sin_coords):
    svg = report_map.route_svg(
        rtm_sin_coords,
        title="Rotterdam to Singapore",
        area_ids=["jwla-southern-red-sea-yemen", "jwla-not-an-area"],
        ports=[("Rotterdam", "NLRTM"), ("Singapore", "SGSIN")],
    )
    assert svg.count("<style>") == 1 and svg.count("<svg") == 1  # one drawing, nothing spliced in
    areas = re.findall(r'<g class="listed-area" data-area="([^"]+)">', svg)
    assert areas == ["jwla-southern-red-sea-yemen"]
    labels = re.findall(r'<text class="port-label" data-role="(\w+)"[^>]*>([^<]+)</text>', svg)
    assert labels == [("origin", "Rotterdam (NLRTM)"), ("destination", "Singapore (SGSIN)")]
    route_at = svg.index('<polyline class="route"')
    assert svg.index('class="listed-area"') < route_at < svg.index('class="port-label"')
    assert ".area{" in svg and ".port-label{" in svg
    width, height = report_map.WIDTH, report_map.HEIGHT
    for x, y in re.findall(r'class="(?:port|area)-label"[^>]* x="([-\d.]+)" y="([-\d.]+)"', svg):
        assert 0 <= float(x) <= width and 0 <= float(y) <= height


def test_a_route_map_without_areas_or_ports_draws_neither(rtm_sin):
    svg, _ = rtm_sin
    assert 'class="listed-area"' not in svg and 'class="port-label"' not in svg
