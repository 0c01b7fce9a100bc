"""Issue 36: every phrase the log reader writes into a provenance is shown in the
reader's language. The real sample logs (``tests/domain/logs`` and the held-out
``logs_heldout``) are read, also with a GPU count given and counted in GCDs, and
each provenance is shown in German, French, Italian and Spanish: no English
function word is left outside the log's own lines (indented excerpts, the bar's own
description) and the framework's key names (``world_size``, ``gres/gpu``)."""

import re
from pathlib import Path

import pytest
from django.utils import translation

from proposals.domain.training_logs import iter_lines, read_log
from proposals.domain.training_logs.provenance import in_reader_language
from proposals.domain.training_logs.results import counted_in_gcds
from tests.web import translation_check as check

DOMAIN = Path(__file__).resolve().parents[1] / "domain"
FOLDERS = (DOMAIN / "logs", DOMAIN / "logs_heldout")
# English function words; those a language uses as its own are not counted in it.
# "Epoch" heads a bar's run ("Epoch 0:"), the reader's word for it.
FUNCTION_WORDS = check.ENGLISH_WORDS | {
    "over",
    "whose",
    "used",
    "same",
    "per",
    "as",
    "epoch",
}
OWN_WORDS = {"it": {"per"}, "de": {"per"}, "fr": set(), "es": set()}
LETTERS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")  # "así" is not "as"
KEY = re.compile(r"[_/.=\d]|^[A-Z]{2,}|[a-z][A-Z]")  # world_size, gres/gpu, CurrSamples


def _items(path: Path):
    with open(path, "rb") as stream:
        reading = read_log(iter_lines(stream), file=path.name)
    for item in (*reading.measurements, *reading.jobs):
        if item.gpus is None:
            item = item.with_gpus(8)  # the count the person gives
        yield item
        yield counted_in_gcds(item, 2, "LUMI-G")  # a whole number of GPUs
        yield counted_in_gcds(item, 3, "LUMI-G")  # mostly not


def provenances() -> list[str]:
    found = []
    for folder in FOLDERS:
        for path in sorted(folder.iterdir()):
            found += sorted({item.source.summary() for item in _items(path)})
    return found


def english_words(text: str, language: str) -> list[str]:
    """The English function words of ``text`` outside the log's own lines and key
    names."""
    own = OWN_WORDS.get(language, set())
    words = []
    for line in text.split("\n"):
        if line.startswith("  "):
            continue  # an excerpt: the log's own line
        for token in line.split():
            if KEY.search(token.strip("(),;:")):
                continue
            for word in LETTERS.findall(token):
                word = word.lower().strip("'’")
                if word in FUNCTION_WORDS and word not in own:
                    words.append(word)
    return words


def test_the_sample_logs_write_english_provenance():
    texts = provenances()
    assert len(texts) >= 100
    # In English the reader's own words are there to be found (the check can fail).
    assert sum(len(english_words(t, "de")) for t in texts) > 200


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_no_english_function_word_is_left(language):
    left: dict[str, list[str]] = {}
    with translation.override(language):
        for text in provenances():
            shown = in_reader_language(text)
            if words := english_words(shown, language):
                left[shown.split("\n", 1)[0][:160]] = words
    assert not left, f"{len(left)} {language} provenance line(s) with English: " + (
        "\n".join(f"{k} -> {v}" for k, v in list(left.items())[:15])
    )
