"""Route computation over 500 random port pairs: this service's engine vs searoute, side by side.

Also measures the share of route length on land with an independent land mask (the
global-land-mask package), excluding the canals the network deliberately crosses.

    .venv/bin/python bench/routing_bench.py [--pairs 500] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import time

from common import report, setup_django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    setup_django()
    import numpy as np
    import searoute
    from global_land_mask import globe

    from voyages import routing
    from voyages.ports import build_catalogue

    started = time.perf_counter()
    catalogue = build_catalogue()
    print(f"network + catalogue build: {(time.perf_counter() - started):.2f} s, {len(catalogue)} routable ports")
    rng = random.Random(args.seed)
    pairs = [tuple(rng.sample(catalogue.ports, 2)) for _ in range(args.pairs)]
    ours, theirs, land_nm, total_nm, failures = [], [], 0.0, 0.0, 0
    canals = [
        ((32.2, 29.9), (32.6, 31.3)),
        ((-80.0, 8.8), (-79.4, 9.5)),
        ((9.1, 53.8), (10.2, 54.4)),
        ((28.9, 40.9), (29.2, 41.3)),
        ((26.2, 40.0), (26.8, 40.5)),
    ]  # Suez, Panama, Kiel, Bosporus, Dardanelles

    def in_canal(lon: float, lat: float) -> bool:
        return any(a[0] <= lon <= b[0] and a[1] <= lat <= b[1] for a, b in canals)

    for origin, destination in pairs:
        started = time.perf_counter()
        try:
            route = routing.compute_route(origin, destination)
        except routing.RouteNotFound:
            failures += 1
            continue
        ours.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        searoute.searoute([origin.lon, origin.lat], [destination.lon, destination.lat], units="naut")
        theirs.append((time.perf_counter() - started) * 1000)
        coords = np.array(route.coordinates)
        mids = (coords[1:] + coords[:-1]) / 2
        lengths = np.array(
            [routing.haversine_nm(tuple(a), tuple(b)) for a, b in zip(coords[:-1], coords[1:], strict=True)]
        )
        lons = ((mids[:, 0] + 180) % 360) - 180
        on_land = globe.is_land(np.clip(mids[:, 1], -89.9, 89.9), lons)
        # The first and last 40 nm are port approaches (rivers, dredged channels a 1 km mask calls land).
        along = np.cumsum(lengths)
        approach = (along < 40) | (along > along[-1] - 40)
        canal = np.array([in_canal(lon, lat) for lon, lat in zip(lons, mids[:, 1], strict=True)])
        land_nm += float(lengths[on_land & ~approach & ~canal].sum())
        total_nm += float(lengths.sum())
    report("routing: this engine (scgraph Dijkstra)", ours)
    report("routing: searoute 1.6 (networkx)", theirs)
    print(f"route_not_found: {failures} of {len(pairs)} pairs")
    print(
        f"length on land outside canals and port approaches: {100 * land_nm / total_nm:.3f} % "
        f"({land_nm:.0f} of {total_nm:.0f} nm)"
    )


if __name__ == "__main__":
    main()
