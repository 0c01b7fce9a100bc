"""Issue 36: the provenance of a row read from a training log (file, lines, formula,
what was left out) is stored in English and shown in the reader's language: its
recurring phrases are rewritten when shown (``training_logs.provenance``), never
stored translated; in English it comes back unchanged."""

from pathlib import Path

import pytest
from django.utils import translation

from proposals import exports, services
from proposals.domain.training_logs import iter_lines, read_log
from proposals.domain.training_logs.provenance import in_reader_language
from proposals.exports import jsonio
from proposals.models import Proposal, ScalingMeasurement
from tests.web import translation_check as check

LOGS = Path(__file__).resolve().parents[1] / "domain" / "logs"
EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"
# English phrases of the stored provenance that no translated page may show.
ENGLISH = (
    "Left out:",
    "median over",
    "warm-up",
    "global batch size",
    "elapsed time per iteration",
    "(line ",
    "lines ",
    "as given",
    "per GPU (median)",
    "the bar ",
    "job steps",
    "not yet run",
    "states:",
    "(to ",
    "whole run",
    "batch size per device",
)


def _provenances() -> list[str]:
    found = []
    for path in sorted(LOGS.iterdir()):
        with open(path, "rb") as stream:
            reading = read_log(iter_lines(stream), file=path.name)
        found += [m.source.summary() for m in reading.measurements]
        found += [j.source.summary() for j in reading.jobs]
    return found


def _shown(text: str) -> str:
    """What is not a log's own excerpt line (those stay as the log wrote them)."""
    return "\n".join(line for line in text.split("\n") if not line.startswith("  "))


def test_in_english_the_provenance_is_unchanged():
    provenances = _provenances()
    assert len(provenances) >= 20
    with translation.override("en-gb"):
        assert [in_reader_language(p) for p in provenances] == provenances


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_the_provenance_is_shown_in_the_readers_language(language):
    provenances = _provenances()
    with translation.override(language):
        shown = [_shown(in_reader_language(p)) for p in provenances]
    left = sorted({e for text in shown for e in ENGLISH if e in text})
    assert left == [], f"English left in the {language} provenance: {left}"
    # The values and the log's own lines are kept.
    for before, after in zip(provenances, shown, strict=True):
        assert before.split(",", 1)[0] == after.split(",", 1)[0]  # the file's name


def test_the_staff_document_and_markdown_show_it_translated(user, catalogue):
    provenance = _provenances()[0]
    proposal = services.proposal_import(
        owner=user,
        document=jsonio.check_file((EXAMPLES / "lumi-fast-lane.json").read_bytes()),
    )
    ScalingMeasurement.objects.filter(proposal=proposal).update(source=provenance)
    stored = ScalingMeasurement.objects.filter(proposal=proposal).first().source
    assert stored == provenance and "Left out:" in stored  # stored as read
    model = Proposal.objects.get(pk=proposal.pk)
    with translation.override("de"):
        source = exports.source_for(model)
    markdown = exports.markdown_for(source, chart=False, language="de")
    assert "Nicht berücksichtigt: Zeile" in markdown and "Left out:" not in markdown
    english = exports.markdown_for(exports.source_for(model), chart=False)
    assert "Left out: line" in english
