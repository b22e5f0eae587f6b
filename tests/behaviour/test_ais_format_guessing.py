"""Which AIS format a file is, and the message when it is not the one asked for (behaviour.ais.formats)."""

from __future__ import annotations

import gzip
import shutil
import zipfile
from pathlib import Path

import pytest

from behaviour.ais.formats import AisFormat, check_format, guess_format, open_text
from behaviour.ais.frames import AisFormatError
from behaviour.ais.readers import read_file
from tests.behaviour.ais_files import MARINECADASTRE_SAMPLE, NMEA_SAMPLE, dma_row, requires_ais_data, write_dma

MC_HEADER = "MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName,IMO,CallSign,VesselType,Status,Length,Width,Draft,Cargo,TransceiverClass"
MC_ROW = "367379190,2022-01-03T00:00:00,30.3706,-88.56408,0.0,336.2,511,EAGLE,IMO8207721,WTD4583,31,0,28,11,3.3,52,A"
PNG_START = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"


@pytest.fixture
def dma_file(tmp_path: Path) -> Path:
    row = dma_row(**{"# Timestamp": "03/01/2022 00:00:00", "Type of mobile": "Class A", "MMSI": "219000001"})
    return write_dma(tmp_path / "aisdk-2022-01-03.csv", [row])


@pytest.fixture
def mc_file(tmp_path: Path) -> Path:
    path = tmp_path / "AIS_2022_01_03.csv"
    path.write_text(f"{MC_HEADER}\n{MC_ROW}\n")
    return path


@pytest.fixture
def nmea_file(tmp_path: Path) -> Path:
    path = tmp_path / "log.nmea"
    # A receiver log often starts with a blank line and a cut sentence.
    path.write_text("\n1,,B,,0*25\n!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,0*24\n")
    return path


def test_each_format_is_recognised_from_its_first_lines(dma_file, mc_file, nmea_file):
    assert guess_format(dma_file) is AisFormat.DMA
    assert guess_format(mc_file) is AisFormat.MARINECADASTRE
    assert guess_format(nmea_file) is AisFormat.NMEA


def test_a_dma_header_without_the_leading_hash_is_still_dma(tmp_path):
    path = tmp_path / "reexport.csv"
    path.write_text("Timestamp,Type of mobile,MMSI,Latitude,Longitude\n")
    assert guess_format(path) is AisFormat.DMA


def test_nmea_behind_tag_blocks_is_recognised(tmp_path):
    path = tmp_path / "tagged.nmea"
    path.write_text("\\s:2573345,c:1641168000*0C\\!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,0*24\n")
    assert guess_format(path) is AisFormat.NMEA


@requires_ais_data
@pytest.mark.shared_data
def test_the_real_samples_are_recognised():
    assert guess_format(MARINECADASTRE_SAMPLE) is AisFormat.MARINECADASTRE
    assert guess_format(NMEA_SAMPLE) is AisFormat.NMEA


def test_gzip_and_single_member_zip_files_are_read_transparently(tmp_path, mc_file, nmea_file):
    packed = tmp_path / "AIS_2022_01_03.csv.gz"
    with mc_file.open("rb") as source, gzip.open(packed, "wb") as target:
        shutil.copyfileobj(source, target)
    zipped = tmp_path / "log.zip"
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(nmea_file, "log.nmea")

    assert guess_format(packed) is AisFormat.MARINECADASTRE
    assert guess_format(zipped) is AisFormat.NMEA
    with open_text(packed) as handle:
        assert handle.read() == mc_file.read_text()
    fmt, chunks = read_file(packed)
    assert fmt is AisFormat.MARINECADASTRE
    assert sum(chunk.counts["positions_kept"] for chunk in chunks) == 1


def test_a_zip_holding_several_files_is_refused_with_their_names(tmp_path, mc_file):
    zipped = tmp_path / "two.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.write(mc_file, "a.csv")
        archive.write(mc_file, "b.csv")
    with pytest.raises(AisFormatError, match="exactly one AIS file.*a.csv, b.csv"):
        guess_format(zipped)


def test_a_marinecadastre_file_read_as_dma_fails_naming_the_dma_header_and_the_line_seen(mc_file):
    with pytest.raises(AisFormatError) as raised:
        read_file(mc_file, AisFormat.DMA)
    message = str(raised.value)
    assert "expected a Danish Maritime Authority CSV whose header begins '# Timestamp,Type of mobile,MMSI" in message
    assert "the first line is 'MMSI,BaseDateTime,LAT,LON" in message
    assert "looks like the marinecadastre format" in message


def test_a_dma_file_read_as_nmea_fails_before_anything_is_read(dma_file):
    with pytest.raises(AisFormatError, match=r"expected raw NMEA 0183 AIS sentences .*'# Timestamp,Type of mobile"):
        check_format(dma_file, AisFormat.NMEA)


def test_a_png_is_refused_naming_the_three_formats_expected(tmp_path):
    path = tmp_path / "chart.png"
    path.write_bytes(PNG_START)
    with pytest.raises(AisFormatError) as raised:
        read_file(path)
    message = str(raised.value)
    assert "Danish Maritime Authority CSV" in message
    assert "MarineCadastre CSV" in message
    assert "NMEA 0183" in message
    assert "binary data" in message and "PNG" in message


def test_an_empty_file_is_refused_saying_it_is_empty(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    with pytest.raises(AisFormatError, match="the file is empty"):
        guess_format(path)
    with pytest.raises(AisFormatError, match="expected a MarineCadastre CSV.*the file is empty"):
        read_file(path, AisFormat.MARINECADASTRE)


def test_some_other_csv_is_refused_quoting_its_header(tmp_path):
    path = tmp_path / "ports.csv"
    path.write_text("locode,name,lat,lon\nDKAAR,Aarhus,56.15,10.22\n")
    with pytest.raises(AisFormatError, match="the first line is 'locode,name,lat,lon'"):
        guess_format(path)
