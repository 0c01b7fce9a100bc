"""Throughput units in pasted tables, in English, German, French, Italian and
Spanish (issue 32): read into the canonical units (tokens/s, samples/s, images/s,
steps/s), said per header, and refused, never stored in part, when they cannot be
read ("échantillons/s" was stored as "chantillons/s", which the MFU check then
did not read)."""

from decimal import Decimal

import pytest

from proposals.domain import mfu
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME
from proposals.domain.paste import Context, read_paste

EN, DE, FR, IT, ES = (
    NUMBER_FORMAT_BY_NAME[name] for name in ("en", "de", "fr", "it", "es")
)


# Headers as spreadsheets in the five languages write them, with each language's
# numbers; the unit stored, and the header's unit as written.
@pytest.mark.parametrize(
    ("text", "fmt", "unit", "written", "throughput"),
    [
        (
            "GPUs\tThroughput (tokens/s)\tMFU (%)\n8\t12,000\t38\n",
            EN,
            "tokens/s",
            "tokens/s",
            Decimal("12000"),
        ),
        (
            "| GPUs | Throughput [samples/sec/GPU] |\n|---|---|\n| 8 | 1,234.5 |\n",
            EN,
            "samples/s/GPU",
            "samples/sec/GPU",
            Decimal("1234.5"),
        ),
        (
            "Anzahl GPUs;Durchsatz (Token/s);MFU (%)\n8;12.000;38\n",
            DE,
            "tokens/s",
            "Token/s",
            Decimal("12000"),
        ),
        (
            "Anzahl GPUs;Durchsatz (Bilder pro Sekunde)\n8;4.225\n",
            DE,
            "images/s",
            "Bilder pro Sekunde",
            Decimal("4225"),
        ),
        (
            "Nombre de GPU;Débit (échantillons/s)\n8;1 234,5\n",
            FR,
            "samples/s",
            "échantillons/s",
            Decimal("1234.5"),
        ),
        (
            "Nombre de GPU;Débit en jetons par seconde\n8;12 000\n",
            FR,
            "tokens/s",
            "jetons par seconde",
            Decimal("12000"),
        ),
        (
            "Numero di GPU;Throughput misurato (campioni/s)\n8;1.234,5\n",
            IT,
            "samples/s",
            "campioni/s",
            Decimal("1234.5"),
        ),
        (
            "Numero di GPU;Prestazioni [immagini/s per GPU]\n8;310\n",
            IT,
            "images/s/GPU",
            "immagini/s per GPU",
            Decimal("310"),
        ),
        (
            "Número de GPUs;Rendimiento (muestras por segundo)\n8;1.234,5\n",
            ES,
            "samples/s",
            "muestras por segundo",
            Decimal("1234.5"),
        ),
        (
            "Número de GPUs;Rendimiento (imágenes/s)\n8;4.225\n",
            ES,
            "images/s",
            "imágenes/s",
            Decimal("4225"),
        ),
    ],
)
def test_a_header_unit_in_five_languages_is_stored_canonical(
    text, fmt, unit, written, throughput
):
    paste = read_paste(text, "measurements", Context(fmt, default_unit="steps/s"))
    assert paste.ready, paste.problems
    (row,) = paste.accepted
    assert row.values["unit"] == unit
    assert row.values["throughput"] == throughput
    (column,) = [c for c in paste.columns if c.target == "throughput"]
    # The preview says which header was read how.
    assert (column.unit_text, column.unit) == (written, unit)
    assert column.unit_renamed is (written != unit)


def test_echantillons_is_not_cut_to_chantillons():
    paste = read_paste(
        "GPUs;Débit (échantillons/s)\n8;1200\n", "measurements", Context(EN)
    )
    (row,) = paste.accepted
    assert row.values["unit"] == "samples/s"
    assert paste.columns[1].unit_text == "échantillons/s"
    # ... and so the MFU check reads it: 1,200 samples of 2,048 tokens.
    assert mfu.tokens_per_second(1200, row.values["unit"], 2048) == 1200 * 2048


@pytest.mark.parametrize(
    "text",
    [
        "GPUs;Throughput (frames/s)\n8;100\n16;190\n",
        "GPUs;Durchsatz (Sequenzen pro Knoten und Sekunde)\n8;100\n",
        "GPUs;frames/s\n8;100\n",
    ],
)
def test_a_header_unit_that_cannot_be_read_refuses_the_table(text):
    paste = read_paste(text, "measurements", Context(EN))
    assert not paste.ready
    (problem,) = paste.problems
    assert "cannot be read as tokens/s, samples/s, images/s, steps/s" in problem
    assert "Nothing is stored from it" in problem
    (column,) = [c for c in paste.columns if c.target == "throughput"]
    assert column.unit_refused and column.unit == ""


def test_an_ignored_column_with_an_unreadable_unit_refuses_nothing():
    paste = read_paste(
        "GPUs;Throughput (tokens/s);Peak (frames/s)\n8;100;120\n",
        "measurements",
        Context(EN),
        mapping={2: ""},
    )
    assert paste.ready and paste.accepted[0].values["unit"] == "tokens/s"


@pytest.mark.parametrize(
    ("cell", "fmt", "unit", "note"),
    [
        ("1 200 échantillons/s", FR, "samples/s", True),
        ("12.000 Token pro Sekunde", DE, "tokens/s", True),
        ("1.200 campioni al secondo", IT, "samples/s", True),
        ("12,000 tokens/s", EN, "tokens/s", False),
    ],
)
def test_a_cell_unit_is_stored_canonical(cell, fmt, unit, note):
    paste = read_paste(f"GPUs;Throughput\n8;{cell}\n", "measurements", Context(fmt))
    (row,) = paste.accepted
    assert row.values["unit"] == unit
    assert any("read as " + unit in n for n in row.notes) is note


def test_a_cell_unit_that_cannot_be_read_refuses_the_row():
    paste = read_paste(
        "GPUs;Throughput\n8;1,200 frames/s\n16;2,300 samples/s\n",
        "measurements",
        Context(EN),
    )
    refused, accepted = paste.rows
    assert "the unit “frames/s” cannot be read" in refused.problems[0]
    assert refused in paste.refused  # not stored, not even its number
    assert accepted.values["unit"] == "samples/s" and not accepted.problems


@pytest.mark.parametrize(
    ("unit_cell", "stored"),
    [
        ("Token pro Sekunde", "tokens/s"),
        ("Bilder/s", "images/s"),
        ("it/s", "steps/s"),
        ("tok/s/GPU", "tokens/s/GPU"),
    ],
)
def test_a_unit_column_is_stored_canonical(unit_cell, stored):
    paste = read_paste(
        f"GPUs;Durchsatz;Einheit\n8;12.000;{unit_cell}\n", "measurements", Context(DE)
    )
    (row,) = paste.accepted
    assert row.values["unit"] == stored


def test_a_unit_column_value_that_cannot_be_read_is_refused():
    paste = read_paste(
        "GPUs;Durchsatz;Einheit\n8;12.000;Frames/s\n", "measurements", Context(DE)
    )
    (row,) = paste.rows
    assert row.problems and "“Frames/s”" in row.problems[0]


@pytest.mark.parametrize(
    ("unit", "tokens"),
    [
        ("jetons/s", 100),
        ("Bilder/s", 100 * 256),
        ("muestras por segundo", 100 * 256),
        ("tokens_per_sec", 100),
        ("it/s", None),
    ],
)
def test_the_mfu_check_reads_units_in_five_languages(unit, tokens):
    assert mfu.tokens_per_second(100, unit, 256) == tokens
