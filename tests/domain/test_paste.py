"""Pasted tables: layouts, headers, numbers in the person's format, GCDs and nodes,
refusals per cell, nothing dropped silently."""

import time
from decimal import Decimal

import pytest

from proposals.domain import limits
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME
from proposals.domain.paste import (
    COMPUTED,
    GCDS,
    IGNORE,
    NODES,
    Context,
    match_header,
    read_paste,
    split_cells,
    targets,
)

EN, DE, FI = (NUMBER_FORMAT_BY_NAME[name] for name in ("en", "de", "fi"))

SPREADSHEET = (
    "GPUs\tThroughput (samples/s)\tEfficiency\n"
    "4\t1,200\t100%\n"
    "8\t2,280\t95%\n"
    "\n"
    "16\t4,225\t88%\n"
)
MARKDOWN_PLAN = """| Job type | GPUs per job | Hours | Jobs | GPU-hours |
|:---|---:|---:|---:|---:|
| Sweep | 8 | 4 | 120 | 3,840 |
| Pre-training | 32 | 24 | 16 | 12,288 |
| **Total** | | | | 16,128 |
"""


@pytest.mark.parametrize(
    ("text", "layout", "first"),
    [
        (
            SPREADSHEET,
            "tab-separated",
            ("GPUs", "Throughput (samples/s)", "Efficiency"),
        ),
        (
            MARKDOWN_PLAN,
            "Markdown table",
            ("Job type", "GPUs per job", "Hours", "Jobs", "GPU-hours"),
        ),
        ('a,b\n1,"1,234"\n', "CSV", ("a", "b")),
        ("GPUs;Durchsatz\n4;1.234,5\n", "semicolon-separated", ("GPUs", "Durchsatz")),
        (
            "gpus  tokens/s\n8     12 000\n",
            "columns aligned with spaces",
            ("gpus", "tokens/s"),
        ),
        ("| a \\| b | c |\n| 1 | 2 |\n", "Markdown table", ("a | b", "c")),
        ("\n\n", "empty", None),
    ],
)
def test_layouts(text, layout, first):
    grid = split_cells(text)
    assert grid.layout == layout
    assert (grid.lines[0][1] if grid.lines else None) == first


def test_blank_lines_and_alignment_row_are_counted_not_read():
    grid = split_cells(SPREADSHEET)
    assert [n for n, _ in grid.lines] == [1, 2, 3, 5]
    assert grid.blank_lines == 1
    assert [n for n, _ in split_cells(MARKDOWN_PLAN).lines] == [1, 3, 4, 5]


@pytest.mark.parametrize(
    ("header", "kind", "target", "unit"),
    [
        ("GPUs", "measurements", "gpus", ""),
        ("GCDs", "measurements", GCDS, ""),
        ("Nodes per job", "jobs", NODES, ""),
        ("Throughput (tokens/s)", "measurements", "throughput", "tokens/s"),
        ("samples/s", "measurements", "throughput", "samples/s"),
        ("MFU (%)", "measurements", "mfu_pct", ""),
        ("MFU %", "measurements", "mfu_pct", ""),
        ("Comm. %", "measurements", "comm_overhead_pct", ""),
        ("Speedup", "measurements", COMPUTED, ""),
        ("Hours per job", "jobs", "hours", ""),
        ("Walltime (h)", "jobs", "hours", ""),
        ("Number of jobs", "jobs", "count", ""),
        ("**Job type**", "jobs", "title", ""),
        ("GPU-hours", "jobs", COMPUTED, ""),
        ("GPU-hours", "schedule", "gpu_hours", ""),
        ("Months", "schedule", "months", ""),
        ("From month", "schedule", "from_month", ""),
        ("Durchsatz", "measurements", "throughput", ""),
        ("Messwert", "measurements", None, ""),
        ("Batch size", "jobs", None, ""),
        ("tokens/s", "jobs", None, "tokens/s"),
    ],
)
def test_headers(header, kind, target, unit):
    assert match_header(header, kind) == (target, unit)


def test_every_kind_offers_ignore_and_its_own_columns():
    for kind in ("measurements", "jobs", "schedule"):
        keys = [t.key for t in targets(kind)]
        assert keys[-1] == IGNORE
        assert "gpus" in keys or "gpu_hours" in keys


def test_spreadsheet_scaling_table_with_thousands_separators():
    paste = read_paste(SPREADSHEET, "measurements", Context(EN))
    assert paste.ready
    assert [(r.line, r.values["gpus"], r.values["throughput"]) for r in paste.rows] == [
        (2, 4, Decimal("1200")),
        (3, 8, Decimal("2280")),
        (5, 16, Decimal("4225")),
    ]
    assert {r.values["unit"] for r in paste.rows} == {"samples/s"}
    assert "1 blank line left out." in paste.skipped
    # The efficiency column is computed by the wizard: mapped, not stored.
    assert paste.columns[2].target == COMPUTED
    assert all("efficiency" not in r.values for r in paste.rows)


@pytest.mark.parametrize(
    ("cell", "fmt", "value", "note"),
    [
        ("1,234", EN, Decimal("1234"), True),
        ("1.234,5", DE, Decimal("1234.5"), False),
        ("1 234,5", FI, Decimal("1234.5"), False),
        ("1234.5", EN, Decimal("1234.5"), False),
        ("12,000 tokens/s", EN, Decimal("12000"), True),
    ],
)
def test_numbers_follow_the_persons_format(cell, fmt, value, note):
    paste = read_paste(f"GPUs;Throughput\n8;{cell}\n", "measurements", Context(fmt))
    (row,) = paste.rows
    assert row.problems == []
    assert row.values["throughput"] == value
    assert bool(row.notes) is note


def test_unit_from_a_cell_wins_over_the_default():
    paste = read_paste(
        "GPUs\tThroughput\n8\t12,000 tokens/s\n", "measurements", Context(EN)
    )
    assert paste.rows[0].values["unit"] == "tokens/s"


def test_markdown_job_plan_skips_the_total_line_and_says_so():
    paste = read_paste(MARKDOWN_PLAN, "jobs", Context(EN))
    assert paste.ready
    assert [r.values for r in paste.rows] == [
        {"title": "Sweep", "gpus": 8, "hours": Decimal("4"), "count": 120},
        {"title": "Pre-training", "gpus": 32, "hours": Decimal("24"), "count": 16},
    ]
    assert any("total line" in line for line in paste.skipped)


@pytest.mark.parametrize(
    "total",
    [
        "Summe",
        "Gesamt",
        "Insgesamt",
        "Totale",
        "Somma",
        "Total général",
        "Somme",
        "Suma",
        "TOTAL",
        "Sous-total",
        "Subtotal",
        "**Summe**",
        "Zwischensumme:",
    ],
)
def test_a_total_line_in_any_drafting_language_is_not_a_job(total):
    # German decimal comma, as a German draft writes it.
    text = (
        "Job\tGPUs\tStunden\tJobs\tGPU-Stunden\n"
        "Sweep\t8\t4\t120\t3.840\n"
        "Pre-training\t32\t24\t16\t12.288\n"
        f"{total}\t\t\t136\t16.128\n"
    )
    paste = read_paste(text, "jobs", Context(DE))
    assert [r.values["title"] for r in paste.rows] == ["Sweep", "Pre-training"]
    assert not any(r.problems for r in paste.rows)
    assert any("Line 4 is a total line" in line for line in paste.skipped)


@pytest.mark.parametrize("name", ["Σ", "", "Aufwand gesamt", "Overall"])
def test_a_line_that_repeats_the_column_sums_is_a_total_whatever_its_name(name):
    text = (
        "Job\tGPUs\tHours\tJobs\tGPU-hours\n"
        "Sweep\t8\t4\t120\t3,840\n"
        "Pre-training\t32\t24\t16\t12,288\n"
        f"{name}\t\t\t136\t16,128\n"
    )
    paste = read_paste(text, "jobs", Context(EN))
    assert [r.values["title"] for r in paste.rows] == ["Sweep", "Pre-training"]
    assert any("Line 4 repeats the sums" in line for line in paste.skipped)


def test_a_line_without_gpus_whose_numbers_are_not_the_sums_stays_a_row():
    text = (
        "Job\tGPUs\tHours\tJobs\tGPU-hours\n"
        "Sweep\t8\t4\t120\t3,840\n"
        "Pre-training\t32\t24\t16\t12,288\n"
        "Evaluation\t\t\t10\t500\n"
    )
    paste = read_paste(text, "jobs", Context(EN))
    assert [r.values.get("title") for r in paste.rows][-1] == "Evaluation"
    assert not any("repeats the sums" in line for line in paste.skipped)


@pytest.mark.parametrize("title", ["Totalitarian ablation", "Summer sweep", "Sumatra"])
def test_a_job_whose_name_only_begins_like_a_total_word_is_kept(title):
    text = f"Job\tGPUs\tHours\tJobs\n{title}\t8\t4\t2\n"
    paste = read_paste(text, "jobs", Context(EN))
    assert [r.values["title"] for r in paste.rows] == [title]


def test_pasted_gpu_hours_that_do_not_multiply_out_are_pointed_out():
    text = "Job\tGPUs\tHours\tJobs\tGPU-hours\nEval\t4\t2\t160\t1,200\n"
    (row,) = read_paste(text, "jobs", Context(EN)).rows
    assert row.problems == []
    assert "1,280" in row.notes[0] and "1,200" in row.notes[0]


def test_unknown_headers_are_asked_and_a_mapping_answers():
    text = "GPUs;Messwert;Art\n4;1.234,5;tokens/s\n"
    paste = read_paste(text, "measurements", Context(DE))
    assert not paste.ready
    assert [c.header for c in paste.unknown] == ["Messwert", "Art"]
    answered = read_paste(
        text, "measurements", Context(DE), mapping={1: "throughput", 2: "unit"}
    )
    assert answered.ready
    assert answered.rows[0].values == {
        "gpus": 4,
        "throughput": Decimal("1234.5"),
        "unit": "tokens/s",
    }
    ignored = read_paste(
        text, "measurements", Context(DE), mapping={1: "throughput", 2: ""}
    )
    assert ignored.ready and ignored.rows[0].values["unit"] == "samples/s"


def test_a_table_without_header_is_all_asked():
    paste = read_paste("4\t1200\n8\t2280\n", "measurements", Context(EN))
    assert [c.header for c in paste.unknown] == ["Column 1", "Column 2"]
    assert [r.cells for r in paste.rows] == [("4", "1200"), ("8", "2280")]
    assert not paste.ready
    mapped = read_paste(
        "4\t1200\n8\t2280\n",
        "measurements",
        Context(EN),
        mapping={0: "gpus", 1: "throughput"},
    )
    assert mapped.ready and [r.values["gpus"] for r in mapped.rows] == [4, 8]


def test_two_columns_for_one_field_is_a_problem():
    paste = read_paste(
        "GPUs\tGCDs\n4\t8\n", "measurements", Context(EN, gcds_per_gpu=2)
    )
    assert paste.problems and "GPUs" in paste.problems[0]
    assert not paste.ready


@pytest.mark.parametrize(
    ("header", "cell", "ctx", "gpus", "problem"),
    [
        ("GCDs", "8", Context(EN, gcds_per_gpu=2), 4, ""),
        ("GCDs", "5", Context(EN, gcds_per_gpu=2), None, "whole number of GPUs"),
        ("GCDs", "8", Context(EN), None, "choose the target system"),
        ("Nodes", "2", Context(EN, gpus_per_node=4), 8, ""),
        ("GPUs", "8", Context(EN, gcds_per_gpu=2), 8, ""),
        ("GPUs", "0", Context(EN), None, "too small"),
        ("GPUs", "4.5", Context(EN), None, "whole number"),
        ("GPUs", "lots", Context(EN), None, "not a number"),
    ],
)
def test_gpu_counts_in_gcds_nodes_and_gpus(header, cell, ctx, gpus, problem):
    (row,) = read_paste(f"{header}\tHours\tJobs\n{cell}\t2\t1\n", "jobs", ctx).rows
    assert row.values.get("gpus") == gpus
    assert (problem in " ".join(row.problems)) if problem else row.problems == []


def test_refusals_are_per_cell_and_other_rows_still_read():
    text = "Job\tGPUs\tHours\tJobs\nA\t8\t4\t10\nB\t8\t99999\t1\nC\t4\t2\t3\n"
    paste = read_paste(text, "jobs", Context(EN))
    assert [r.values["title"] for r in paste.accepted] == ["A", "C"]
    (refused,) = paste.refused
    assert refused.line == 3 and "Hours per job" in refused.problems[0]
    assert paste.ready  # the readable rows can be added; the refusal is shown


def test_row_limit_refuses_the_rows_beyond_it():
    text = "Job\tGPUs\n" + "".join(f"J{i}\t4\n" for i in range(5))
    paste = read_paste(text, "jobs", Context(EN, room=3))
    assert len(paste.accepted) == 3
    assert len(paste.refused) == 2
    assert str(limits.MAX_ROWS["jobs"]) in paste.refused[0].problems[0]


@pytest.mark.parametrize(
    ("cell", "first", "last", "problem"),
    [
        ("1-3", 1, 3, ""),
        ("4", 4, 4, ""),
        ("4–6", 4, 6, ""),
        ("7 to 9", 7, 9, ""),
        ("6-2", None, None, "before the first"),
        ("0", None, None, "counted from 1"),
        ("May", None, None, "not a month"),
    ],
)
def test_schedule_months(cell, first, last, problem):
    text = f"Months\tGPU-hours\tActivity\n{cell}\t1.000\tTraining\n"
    (row,) = read_paste(text, "schedule", Context(DE)).rows
    if problem:
        assert problem in " ".join(row.problems)
    else:
        assert (row.values["from_month"], row.values["to_month"]) == (first, last)
        assert row.values["gpu_hours"] == Decimal("1000")


def test_percent_signs_and_code_names():
    text = (
        "Code,GPUs,Throughput,MFU,Comm. %\ntrainer,8,100,38 %,12%\nother,8,100,40,1\n"
    )
    paste = read_paste(text, "measurements", Context(EN, codes={"trainer": 7}))
    ok, bad = paste.rows
    assert ok.values["mfu_pct"] == Decimal("38") and ok.values["code"] == 7
    assert ok.values["comm_overhead_pct"] == Decimal("12")
    assert "no code entry named “other”" in bad.problems[0]


def test_too_many_cells_and_empty_text():
    paste = read_paste("GPUs\tHours\n4\t2\t9\n", "jobs", Context(EN))
    assert [c.header for c in paste.unknown] == ["Column 3"]
    assert not paste.ready
    empty = read_paste("  \n", "jobs", Context(EN))
    assert empty.problems and not empty.ready


def test_line_with_nothing_to_store_is_said():
    paste = read_paste(
        "Job\tGPUs\tSpeed\n\t\t\nA\t4\t\n", "jobs", Context(EN), mapping={2: ""}
    )
    assert (
        any("nothing to store" in line for line in paste.skipped)
        or len(paste.rows) == 1
    )


# Issue 22: "Throughput (tokens/s)" was recognised, yet every row was stored as
# samples/s (the default), mislabelling the chart and stopping the MFU check.
@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("GPUs\tThroughput (tokens/s)\n8\t12,000\n16\t23,500\n", "tokens/s"),
        ("| GPUs | Throughput [images/s] |\n|---|---|\n| 4 | 1,200 |\n", "images/s"),
        # A cell's own unit, and a unit column, say more than the header.
        ("GPUs\tThroughput (tokens/s)\n8\t900 samples/s\n", "samples/s"),
        # ... read as canonical units (issue 32): "seq/s" is samples/s.
        ("GPUs\tThroughput (tokens/s)\tUnit\n8\t900\tseq/s\n", "samples/s"),
    ],
)
def test_the_header_unit_is_stored(text, unit):
    paste = read_paste(text, "measurements", Context(EN, default_unit="samples/s"))
    assert paste.ready
    assert {row.values["unit"] for row in paste.accepted} == {unit}


def test_a_proposal_with_one_code_entry_gets_it_on_every_row():
    text = "GPUs\tThroughput (tokens/s)\n8\t12,000\n16\t23,500\n"
    ctx = Context(
        EN, codes={"megatron-lm": 41}, only_code=41, only_code_name="Megatron-LM"
    )
    paste = read_paste(text, "measurements", ctx)
    assert [row.values["code"] for row in paste.accepted] == [41, 41]
    assert paste.notes == [
        "No code column: every row belongs to the proposal's only code entry, "
        "“Megatron-LM”."
    ]
    # Two code entries: the rows wait for a choice, as before.
    two = Context(EN, codes={"a": 1, "b": 2})
    assert all(
        "code" not in r.values for r in read_paste(text, "measurements", two).rows
    )


# Headers as Spanish, German, French and Italian spreadsheets write them, with the
# numbers in each format.


@pytest.mark.parametrize(
    ("text", "fmt", "values"),
    [
        (
            "Número de GPUs;Rendimiento (tokens/s);Sistema\n8;12.000;MN5\n",
            DE,
            {
                "gpus": 8,
                "throughput": Decimal("12000"),
                "unit": "tokens/s",
                "hardware": "MN5",
            },
        ),
        (
            "Anzahl GPUs;Durchsatz (Samples/s);Effizienz\n4;1.234,5;100 %\n",
            DE,
            {"gpus": 4, "throughput": Decimal("1234.5"), "unit": "samples/s"},
        ),
        (
            "Nombre de GPU;Débit;Unité\n16;4 225;images/s\n",
            FI,
            {"gpus": 16, "throughput": Decimal("4225"), "unit": "images/s"},
        ),
        (
            "Nodi;Prestazioni (token/s);Efficienza\n2;23.500;95%\n",
            DE,
            {"gpus": 8, "throughput": Decimal("23500"), "unit": "tokens/s"},
        ),
    ],
)
def test_local_language_headers(text, fmt, values):
    paste = read_paste(text, "measurements", Context(fmt, gpus_per_node=4))
    assert paste.ready, [c.header for c in paste.unknown]
    assert paste.accepted[0].values == values


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Trabajo;GPUs;Horas;Trabajos\nAjuste fino;8;24;10\n", "jobs"),
        ("Aufgabe;GPUs;Stunden;Anzahl;GPU-Stunden\nTraining;8;24;10;1.920\n", "jobs"),
        ("Tâche;Nœuds;Durée;Nombre de tâches\nÉvaluation;1;2;160\n", "jobs"),
        ("Mese;Ore GPU;Attività\n1-3;6.000;porting\n", "schedule"),
        ("Desde;Hasta;Horas GPU;Actividad\n4;6;12.176;entrenamiento\n", "schedule"),
    ],
)
def test_local_language_headers_in_jobs_and_schedule(text, kind):
    paste = read_paste(text, kind, Context(DE, gpus_per_node=4))
    assert paste.ready, [c.header for c in paste.unknown]


def test_a_header_word_means_one_field_per_table():
    from proposals.domain.paste_columns import SYNONYMS

    for kind, fields in SYNONYMS.items():
        seen = {}
        for key, words in fields.items():
            for word in words:
                assert seen.setdefault(word, key) == key, (kind, word)


@pytest.mark.parametrize(
    "text",
    [
        "x" * 40_000,  # one long first line: is it a header? (a unit is looked for)
        "GPUs;Throughput\n8;" + "x" * 40_000,  # a long throughput cell
        "GPUs;Throughput (" + "x" * 40_000 + ")\n8;100\n",  # a long unit in a header
    ],
)
def test_a_long_cell_is_read_in_linear_time(text):
    """The unit pattern was tried from every letter of a long word, each try running
    to the word's end: 100,000 characters kept a worker busy past its timeout (found
    by the held-out fuzz of issue 20)."""
    started = time.perf_counter()
    read_paste(text, "measurements", Context(EN))
    read_paste(text, "jobs", Context(EN))
    assert time.perf_counter() - started < 2
