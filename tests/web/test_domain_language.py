"""The domain's texts in the person's language (issue 25): rule messages, rule
titles, field labels and help come out German or French when that language is
active, with the numbers inside still printed in the active number format, and
stay English with English active or with no translation installed (the pure
domain, the JSON, the portal text).

The catalogue is this project's own: the domain's fragments are compiled with
msgfmt into a temporary LOCALE_PATHS directory, so the test reads what ships.
"""

import shutil
import subprocess
from pathlib import Path

import pytest
from django.utils import translation

from proposals.domain import fields, i18n, numbers, rules
from proposals.domain.findings import REGISTRY
from proposals.domain.i18n import english
from proposals.domain.technical_review import OUTCOMES
from tests.domain.builders import example, findings

LOCALE = Path(__file__).resolve().parents[2] / "locale"
GERMAN = numbers.NUMBER_FORMAT_BY_NAME["de"]
FRENCH = numbers.NUMBER_FORMAT_BY_NAME["fr"]
ENGLISH = numbers.NUMBER_FORMAT_BY_NAME["en"]


@pytest.fixture
def catalogues(tmp_path, settings):
    """The German and French catalogues, compiled here and made Django's only
    LOCALE_PATHS (changing the setting clears Django's translation caches)."""
    if not shutil.which("msgfmt"):
        pytest.skip("msgfmt (gettext) is not installed")
    for lang in ("de", "fr"):
        out = tmp_path / lang / "LC_MESSAGES"
        out.mkdir(parents=True)
        subprocess.run(
            [
                "msgfmt",
                "--check-format",
                "-o",
                str(out / "django.mo"),
                str(LOCALE / lang / "LC_MESSAGES" / "django.po"),
            ],
            check=True,
        )
    settings.LOCALE_PATHS = [str(tmp_path)]
    yield tmp_path


def tier_1(proposal) -> str:
    (finding,) = findings(proposal, "TIER-1")
    return finding.message


def test_finding_message_in_german_with_german_numbers(catalogues):
    proposal = example("lumi-fast-lane")
    with translation.override("de"), numbers.using(GERMAN):
        message = tier_1(proposal)
    assert message.startswith("18.176 GPU-Stunden sind ein Antrag für Fast Lane: ")
    assert "GPU-hours" not in message


def test_finding_message_in_french_with_french_numbers(catalogues):
    proposal = example("lumi-fast-lane")
    with translation.override("fr"), numbers.using(FRENCH):
        message = tier_1(proposal)
    # CLDR's French groups with a narrow no-break space.
    assert message.startswith(f"18{FRENCH.group_display}176 heures GPU, c'est une")


def test_field_label_help_and_rule_title_in_german(catalogues):
    spec = fields.field("total_gpu_hours")
    with translation.override("de"), numbers.using(GERMAN):
        assert spec.label == "GPU-Stunden insgesamt"
        assert fields.label("total_gpu_hours") == "GPU-Stunden insgesamt"
        # The call terms' figures inside the help follow the number format.
        assert "bis 5.000 Playground, bis 50.000 Fast Lane" in spec.help_for(None)
        assert REGISTRY["TIER-1"].title == "Stufe gemäß den GPU-Stunden"
        assert OUTCOMES["feasible"] == "Machbar"
        # What keys, comparisons and the JSON use stays English.
        assert english(spec, "label") == "Total GPU-hours"
        assert OUTCOMES.english("feasible") == "Feasible"


def test_english_active_stays_english(catalogues):
    proposal = example("lumi-fast-lane")
    with translation.override("en-gb"), numbers.using(ENGLISH):
        assert tier_1(proposal).startswith("18,176 GPU-hours is a Fast Lane request: ")
        assert fields.label("total_gpu_hours") == "Total GPU-hours"
        assert REGISTRY["TIER-1"].title == "Tier implied by the GPU-hours"


def test_pure_domain_without_translation_stays_english(catalogues, monkeypatch):
    """With no translation functions installed (the domain on its own, as the
    ``assess`` command and the domain tests use it), German being active in
    Django changes nothing."""
    monkeypatch.setattr(i18n, "_gettext", lambda text: text)
    monkeypatch.setattr(i18n, "_constants", {})
    monkeypatch.setattr(i18n, "_ngettext", lambda one, many, n: one if n == 1 else many)
    proposal = example("lumi-fast-lane")
    with translation.override("de"):
        assert tier_1(proposal).startswith("18,176 GPU-hours is a Fast Lane request: ")
        assert fields.label("total_gpu_hours") == "Total GPU-hours"
        assert [r.title for r in rules()][:1] == [REGISTRY["CODE-1"].title]
        assert REGISTRY["CODE-1"].title == "No main code entry"


def test_every_rule_title_and_field_label_is_translated(catalogues):
    """No rule title or field label is left English in German (a marker that
    was forgotten, or a fragment entry that was not filled)."""
    same = {"GPU", "GPUs", "GCD", "MFU", "Code", "Organisation", "MFU (%)", "MFU %"}
    left = []
    with translation.override("de"):
        for rule in rules():
            if rule.title == english(rule, "title"):
                left.append(rule.code)
        for spec in fields.FIELDS:
            if spec.label == english(spec, "label") and spec.label not in same:
                left.append(spec.key)
    assert left == []


@pytest.mark.django_db
def test_wizard_form_labels_and_choices_follow_the_language(catalogues):
    """The models freeze their verbose names in English at import; the wizard's
    forms show the domain's labels and choices in the active language."""
    from proposals.forms.steps import OrganisationForm, SelectionForm
    from proposals.forms.table_forms import CodeEntryForm

    with translation.override("de"):
        organisation = OrganisationForm()
        selection = SelectionForm()
        code = CodeEntryForm()
    assert organisation.fields["title"].label == "Arbeitstitel"
    kinds = dict(organisation.fields["organisation_kind"].choices)
    assert kinds["sme"] == "KMU"
    assert selection.fields["total_gpu_hours"].label == "GPU-Stunden insgesamt"
    assert dict(code.fields["model_use"].choices)["training"].endswith("pro Token)")
    assert code.fields["name"].label == "Name des Codes"
    with translation.override("en-gb"):
        organisation = OrganisationForm()
    assert organisation.fields["title"].label == "Working title"
    assert dict(organisation.fields["organisation_kind"].choices)["sme"] == "SME"
