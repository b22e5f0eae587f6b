"""The 1 km global land mask as a packed, memory-mapped bit file shared by every process.

`is_land(lat, lon)` answers exactly as `global_land_mask.globe.is_land` (same validation, same
lat/lon to cell rounding, scalars and arrays), but without loading the package's 933 MB boolean
grid into each process. The grid (21,600 x 43,200 cells, 1 = land) is packed 8 cells to a byte
(`np.packbits`, big-endian bit order, 5,400 bytes a row: 117 MB) into one file under the var
directory, written once and opened read-only with `np.memmap`, so every web and worker process
maps the same page-cache pages and only touches the few it samples.

File layout: a 4,096-byte header (`LANDMASK` magic line, then JSON: format version, shape, the
grid's axis values as exact float hex, the SHA-256 of the packed bits and of the package's source
file), then the packed rows. A process verifies the file once before its first lookup (size,
header, checksum, source); a missing, truncated, corrupt or stale file is rebuilt under a file
lock and renamed into place atomically. Building streams the package's compressed `.npz` row block
by row block (about 30 MB peak), without importing `global_land_mask`. `manage.py build_landmask`
builds it ahead of time (bin/setup runs it).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import tempfile
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FILE_NAME = "landmask-1km.bin"
MAGIC = b"LANDMASK\n"
FORMAT_VERSION = 1
HEADER_BYTES = 4096
SOURCE_PACKAGE = "global_land_mask"
SOURCE_FILE = "globe_combined_mask_compressed.npz"
_BUILD_ROWS = 600  # rows decompressed per block while building (600 x 43,200 bools = 26 MB)
_HASH_CHUNK = 8 << 20


class LandMaskUnavailable(RuntimeError):
    """The mask file cannot be built (the source package is missing) and no valid file exists."""


def default_path() -> Path:
    """`<VAR_DIR>/landmask-1km.bin` (Django's settings.VAR_DIR, else SERVICE_VAR_DIR, else ./var)."""
    try:
        from django.conf import settings

        if settings.configured and getattr(settings, "VAR_DIR", None):
            return Path(settings.VAR_DIR) / FILE_NAME
    except ImportError:  # pragma: no cover - Django is always installed here
        pass
    root = os.environ.get("SERVICE_VAR_DIR") or Path(__file__).resolve().parent.parent / "var"
    return Path(root) / FILE_NAME


def source_path() -> Path | None:
    """The package's compressed mask, located without importing the package (which loads 1 GB)."""
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    candidate = Path(next(iter(spec.submodule_search_locations))) / SOURCE_FILE
    return candidate if candidate.is_file() else None


def _sha256_file(path: Path, offset: int = 0) -> str:
    """SHA-256 of a file from `offset`, read in chunks (page cache, not this process's RSS)."""
    digest = hashlib.sha256()
    buffer = bytearray(_HASH_CHUNK)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as handle:
        handle.seek(offset)
        while True:
            count = handle.readinto(buffer)
            if not count:
                break
            digest.update(view[:count])
    return digest.hexdigest()


@dataclass(frozen=True)
class _Axis:
    """One axis of the package's grid: the values globe.py's lat_to_index/lon_to_index use."""

    name: str
    bound: float  # |value| must not exceed it
    first: np.float64
    second: np.float64
    low: np.float64
    high: np.float64

    @classmethod
    def from_values(cls, name: str, bound: float, values: np.ndarray) -> _Axis:
        return cls(name, bound, values[0], values[1], values.min(), values.max())

    def to_header(self) -> dict:
        return {key: float(getattr(self, key)).hex() for key in ("first", "second", "low", "high")}

    @classmethod
    def from_header(cls, name: str, bound: float, data: dict) -> _Axis:
        return cls(name, bound, *(np.float64(float.fromhex(data[key])) for key in ("first", "second", "low", "high")))

    def index(self, values: object) -> np.ndarray:
        """globe.lat_to_index / lon_to_index, step for step (input dtype, clamping and truncation kept)."""
        values = np.array(values)
        if np.any(values > self.bound):
            raise ValueError(f"{self.name} must be <= {self.bound:g}")
        if np.any(values < -self.bound):
            raise ValueError(f"{self.name} must be >= {-self.bound:g}")
        values[values > self.high] = self.high
        values[values < self.low] = self.low
        return ((values - self.first) / (self.second - self.first)).astype("int")


class LandMask:
    """A verified mask file, memory-mapped read-only."""

    def __init__(self, path: Path, header: dict) -> None:
        self.path = path
        self.rows, self.columns = header["shape"]
        self.row_bytes = header["row_bytes"]
        self.lat = _Axis.from_header("latitude", 90, header["lat"])
        self.lon = _Axis.from_header("longitude", 180, header["lon"])
        mapped = np.memmap(path, dtype=np.uint8, mode="r", offset=HEADER_BYTES, shape=(self.rows, self.row_bytes))
        self._bits = mapped.view(np.ndarray)  # plain ndarray over the shared mapping (keeps it alive)

    def is_land(self, lat: object, lon: object) -> np.ndarray | np.bool_:
        lat_i = self.lat.index(lat)
        lon_i = self.lon.index(lon)
        packed = self._bits[lat_i, lon_i >> 3]
        return np.not_equal((packed >> (7 - (lon_i & 7))) & 1, 0)


def read_header(path: Path) -> dict | None:
    """The header when the file is present, well-formed and of the size it announces; else None."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(HEADER_BYTES)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return None
    if len(raw) != HEADER_BYTES or not raw.startswith(MAGIC):
        return None
    try:
        header = json.loads(raw[len(MAGIC) :].rstrip(b" \n\0").decode())
        rows, columns = header["shape"]
        ok = (
            header["version"] == FORMAT_VERSION
            and header["row_bytes"] == (columns + 7) // 8
            and size == HEADER_BYTES + rows * header["row_bytes"]
            and all(k in header[a] for a in ("lat", "lon") for k in ("first", "second", "low", "high"))
        )
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return header if ok else None


def verify(path: Path, source: Path | None = None) -> dict | None:
    """The header of a complete, uncorrupted file built from the installed package's data; else None.

    Checks the size and header, the SHA-256 of the packed bits (about 0.1 s) and, when the
    package is installed, that it was built from the same source file.
    """
    header = read_header(path)
    if header is None or _sha256_file(path, HEADER_BYTES) != header.get("sha256"):
        return None
    source = source if source is not None else source_path()
    if source is not None and _sha256_file(source) != header.get("source_sha256"):
        return None
    return header


def build(path: Path, source: Path | None = None) -> dict:
    """Write the packed mask to `path` atomically (temporary file in the same folder, then rename)."""
    source = source or source_path()
    if source is None:
        raise LandMaskUnavailable(f"the {SOURCE_PACKAGE} package is not installed; cannot build {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as archive:
        with archive.open("lat.npy") as handle:
            lat = np.lib.format.read_array(handle)
        with archive.open("lon.npy") as handle:
            lon = np.lib.format.read_array(handle)
        with archive.open("mask.npy") as handle:
            version = np.lib.format.read_magic(handle)
            read_array_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            shape, fortran_order, dtype = read_array_header(handle)
            if len(shape) != 2 or fortran_order or dtype != np.bool_ or shape != (lat.size, lon.size):
                raise LandMaskUnavailable(
                    f"unexpected mask layout in {source}: {shape} {dtype} fortran={fortran_order}"
                )
            rows, columns = shape
            row_bytes = (columns + 7) // 8
            digest = hashlib.sha256()
            descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(descriptor, "wb") as out:
                    out.write(b"\0" * HEADER_BYTES)
                    for start in range(0, rows, _BUILD_ROWS):
                        count = min(_BUILD_ROWS, rows - start)
                        raw = handle.read(count * columns)
                        if len(raw) != count * columns:
                            raise LandMaskUnavailable(f"{source} ended early at row {start}")
                        ocean = np.frombuffer(raw, dtype=np.bool_).reshape(count, columns)
                        packed = np.packbits(~ocean, axis=1)  # the package stores True = ocean
                        digest.update(packed.data)
                        out.write(packed.data)
                    header = {
                        "version": FORMAT_VERSION,
                        "shape": [rows, columns],
                        "row_bytes": row_bytes,
                        "bit_order": "big",
                        "meaning": "1 = land (global_land_mask globe.is_land)",
                        "lat": _Axis.from_values("latitude", 90, lat).to_header(),
                        "lon": _Axis.from_values("longitude", 180, lon).to_header(),
                        "sha256": digest.hexdigest(),
                        "source_sha256": _sha256_file(source),
                    }
                    encoded = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
                    if len(encoded) > HEADER_BYTES:
                        raise AssertionError("land mask header too long")
                    out.seek(0)
                    out.write(encoded.ljust(HEADER_BYTES, b" "))
                    out.flush()
                    os.fsync(out.fileno())
                os.chmod(temporary, 0o644)
                os.replace(temporary, path)
            except BaseException:
                try:
                    os.unlink(temporary)
                except FileNotFoundError:
                    pass
                raise
    return header


def ensure(path: Path | None = None, *, force: bool = False) -> tuple[Path, dict, bool]:
    """A verified mask file at `path` (built when missing, stale or damaged): (path, header, built).

    Builders serialise on `<path>.lock`, so concurrent first users build it once.
    """
    path = Path(path or default_path())
    source = source_path()
    if not force:
        header = verify(path, source)
        if header is not None:
            return path, header, False
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not force:
                header = verify(path, source)  # another process may have built it meanwhile
                if header is not None:
                    return path, header, False
            if source is None:
                raise LandMaskUnavailable(f"{path} is missing or damaged and {SOURCE_PACKAGE} is not installed")
            build(path, source)
            header = verify(path, source)
            if header is None:
                raise LandMaskUnavailable(f"{path} failed verification right after it was built")
            return path, header, True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def open_mask(path: Path | None = None) -> LandMask:
    """Verify (building if needed) and map the mask file at `path`."""
    path, header, _ = ensure(path)
    return LandMask(path, header)


_mask: LandMask | None = None
_lock = threading.Lock()


def get_mask() -> LandMask:
    """The process-wide mask, verified and mapped on first use."""
    global _mask
    mask = _mask
    if mask is None:
        with _lock:
            if _mask is None:
                _mask = open_mask()
            mask = _mask
    return mask


def reset() -> None:
    """Forget the process-wide mapping (tests; the next lookup verifies the file again)."""
    global _mask
    with _lock:
        _mask = None


def is_land(lat: object, lon: object) -> np.ndarray | np.bool_:
    """Whether each (lat, lon) is on land, exactly as global_land_mask.globe.is_land answers.

    Scalars give a numpy bool, arrays a bool array of the broadcast shape; lat must lie in
    [-90, 90] and lon in [-180, 180] (ValueError otherwise). Most lakes count as land.
    """
    return get_mask().is_land(lat, lon)


def is_ocean(lat: object, lon: object) -> np.ndarray | np.bool_:
    return np.logical_not(is_land(lat, lon))
