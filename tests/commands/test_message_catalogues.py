"""The message catalogues stay reviewable (issue 36): no source locations (two new
strings change two entries, not hundreds of "#:" lines), no fuzzy matching (no
pre-filled wrong guess such as "Licence" -> "Nachweise"), and no fuzzy entry ships."""

import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from tests.web.translation_check import read_catalogue

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = sorted(ROOT.glob("locale/**/LC_MESSAGES/django.po"))


def _makemessages():
    return load_command_class(get_commands()["makemessages"], "makemessages")


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_catalogue_holds_source_locations_or_fuzzy_entries(po):
    """Every catalogue of every language (``locale/*``, ``locale/rules/*``)."""
    lines = po.read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if line.startswith("#: ")] == []
    fuzzy = [m.id for m in read_catalogue(po) if m.id and m.fuzzy]
    assert fuzzy == [], f"fuzzy entries in {po}: {fuzzy}"


def test_makemessages_writes_no_locations_and_guesses_nothing():
    command = _makemessages()
    assert type(command).__module__ == "aifactory.management.commands.makemessages"
    parser = command.create_parser("manage.py", "makemessages")
    assert parser.parse_args(["-l", "de"]).no_location is True
    assert "--no-fuzzy-matching" in command.msgmerge_options


def test_make_messages_passes_no_location():
    recipe = subprocess.run(
        ["make", "-n", "messages"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    [line] = [line for line in recipe.splitlines() if "makemessages" in line]
    assert "--no-location" in line and "--no-obsolete" in line


@pytest.mark.skipif(shutil.which("msgmerge") is None, reason="needs gettext")
def test_with_the_commands_options_a_new_string_is_not_guessed(tmp_path):
    """What msgmerge does with the options the command gives it: "Licence", new,
    stays untranslated instead of taking the translation of a similar msgid."""
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Licences"\nmsgstr "Lizenzen"\n',
        encoding="utf-8",
    )
    pot = tmp_path / "django.pot"
    pot.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Licences"\nmsgstr ""\n\nmsgid "Licence"\nmsgstr ""\n',
        encoding="utf-8",
    )
    options = _makemessages().msgmerge_options
    subprocess.run(["msgmerge", *options, str(po), str(pot)], check=True)
    merged = po.read_text(encoding="utf-8")
    assert "fuzzy" not in merged
    assert 'msgid "Licence"\nmsgstr ""' in merged
