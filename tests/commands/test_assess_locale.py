"""``assess --format text --locale``: a command has no person, so its text is in the
portal's form unless a CLDR locale is named (issue 25); the JSON never changes."""

import json

import pytest
from django.core.management.base import CommandError

from tests.commands.test_commands import EXAMPLES, run

pytestmark = pytest.mark.django_db
LUMI = str(EXAMPLES / "lumi-fast-lane.json")


def line(out, start):
    return next(text for text in out.splitlines() if text.startswith(start))


def test_text_in_german_format_everywhere(catalogue):
    code, out, _ = run("assess", LUMI, "--format", "text", "--locale", "de_DE")
    assert code == 0
    assert line(out, "Job plan:").startswith("Job plan: 18.176 GPU-hours")
    assert "1,90x  95\u00a0%" in out and "2.280 samples/s" in out
    assert "8,3 GPUs (2,07 nodes)" in line(out, "Calendar:")
    assert "Energy: 6,9 MWh" in out
    # The findings' sentences too (written as the assessment is made).
    assert "selection.total_gpu_hours: 18.176 GPU-hours" in out
    assert "18,176" not in out


def test_swiss_locale_named_with_a_hyphen(catalogue):
    _, out, _ = run("assess", LUMI, "--format", "text", "--locale", "de-CH")
    assert "Job plan: 18'176 GPU-hours" in out and "1.90x" in out


def test_default_is_the_portal_form_and_json_ignores_the_locale(catalogue):
    _, text, _ = run("assess", LUMI, "--format", "text")
    assert "Job plan: 18,176 GPU-hours" in text and "1.90x" in text
    _, german, _ = run("assess", LUMI, "--locale", "de_DE")
    _, plain, _ = run("assess", LUMI)
    assert json.loads(german) == json.loads(plain)
    assert "18.176 GPU-hours" not in german


def test_unknown_locale_is_refused(catalogue):
    with pytest.raises(CommandError, match="--locale xx"):
        run("assess", LUMI, "--format", "text", "--locale", "xx")
