"""Each language's domain terms (locale/terms/<code>.json): one translation per
English term, and every catalogue entry whose English says the term says it in that
translation. A terms file is a JSON object ``{"<English term>": "<translation>"}``; a
list of accepted forms stands for inflections (``["piano dei job", "piani dei
job"]``). The English term is matched as a word, case-insensitively, in the msgid's
text (placeholders, tags and English kept on purpose, ``lang="en"``, taken out); the
translation as text, case-insensitively, in the msgstr.

Where a term's translation comes from: the hosting sites' and EuroHPC's own documents
in that language where they exist (locale/terms/README.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.web import translation_check as check

TERMS = check.ROOT / "locale" / "terms"
# A terms file names the domain's vocabulary, not three words: at least this many.
FEWEST_TERMS = 20

ENGLISH_ON_PURPOSE = re.compile(
    r"<(?P<tag>[a-z0-9]+)\b[^>]*\blang=\"en[^\"]*\"[^>]*>.*?</(?P=tag)>", re.S
)
APOSTROPHES = str.maketrans({"’": "'", "\u00a0": " ", "\u202f": " "})


def terms_path(language: str) -> Path:
    return TERMS / f"{language}.json"


def read_terms(path: Path) -> dict[str, list[str]]:
    """The terms file at ``path``: each English term with its accepted forms."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {
        term: [forms] if isinstance(forms, str) else list(forms)
        for term, forms in raw.items()
    }


# Code and file names (``MAX_MACHINE_SHARE``, docs/calls.md) are no words to translate.
CODE = re.compile(r"``.*?``|<code\b[^>]*>.*?</code>|\S+/\S+", re.S)


def _english_text(msgid: str) -> str:
    """What of ``msgid`` is English words to translate: without what it keeps in
    English on purpose, code, its tags and its placeholders."""
    text = CODE.sub(" ", ENGLISH_ON_PURPOSE.sub(" ", msgid))
    return re.sub(f"{check.TAG.pattern}|{check.PLACEHOLDER.pattern}", " ", text)


def _word(term: str) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", re.I)


def _says(text: str, forms: list[str]) -> bool:
    text = " ".join(text.translate(APOSTROPHES).lower().split())
    return any(
        " ".join(f.translate(APOSTROPHES).lower().split()) in text for f in forms
    )


def term_misses(catalogues: list[Path], terms: dict[str, list[str]]) -> list[str]:
    """Each (term, msgid) whose msgid says the term and whose translation does not
    say it in any of the term's accepted forms. A longer term that holds a shorter
    one speaks for it ("peak throughput", German "Spitzenleistung", is no
    "throughput", "Durchsatz")."""
    patterns = {term: _word(term) for term in terms}
    longer = {
        term: [
            _word(other) for other in terms if other != term and pattern.search(other)
        ]
        for term, pattern in patterns.items()
    }
    misses = []
    for path in catalogues:
        # Translated entries only: an untranslated one is the catalogue test's.
        for ids, strings in check.entries(check.read_catalogue(path)):
            # The singular's translation is the first form, the plural's the others.
            pairs = [(ids[0], strings[:1])]
            if len(ids) > 1:
                pairs.append((ids[1], strings[1:] or strings[:1]))
            for msgid, translations in pairs:
                english = _english_text(msgid)
                for term, pattern in patterns.items():
                    own = english
                    for other in longer[term]:
                        own = other.sub(" ", own)
                    if pattern.search(own) and not all(
                        _says(t, terms[term]) for t in translations
                    ):
                        misses.append(
                            f"{term!r} -> {terms[term][0]!r}: {msgid!r} "
                            f"is {translations[0]!r}"
                        )
    return misses


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_each_language_has_its_terms(language):
    path = terms_path(language)
    assert path.exists(), (
        f"{path.relative_to(check.ROOT)} is missing: list the domain's terms and "
        "their one translation (see locale/terms/README.md)."
    )
    terms = read_terms(path)
    assert len(terms) >= FEWEST_TERMS, f"only {len(terms)} terms in {path.name}"
    for term, forms in terms.items():
        assert forms and all(f.strip() for f in forms), term


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_catalogues_say_each_term_in_its_one_translation(language):
    path = terms_path(language)
    if not path.exists():
        pytest.fail(f"{path.relative_to(check.ROOT)} is missing")
    catalogues = [p for p in check.catalogue_paths(language) if p.exists()]
    assert catalogues, f"no catalogue for {language}"
    misses = term_misses(catalogues, read_terms(path))
    assert misses == [], f"{len(misses)} in {language}:\n" + "\n".join(misses)


def test_the_check_finds_a_term_said_otherwise(tmp_path):
    """A second name for the job plan is found; an inflected accepted form, a term
    inside a placeholder or kept English on purpose, and a longer word that only
    starts like the term are not."""
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Open the job plan"\nmsgstr "Apri il piano dei job"\n\n'
        'msgid "Two job plans"\nmsgstr "Due piani dei job"\n\n'
        'msgid "Check the job plan"\nmsgstr "Controlla il piano di lavoro"\n\n'
        'msgid "Rows of %(job_plan)s"\nmsgstr "Righe di %(job_plan)s"\n\n'
        'msgid "The portal asks <span lang=\\"en\\">job plan</span>"\n'
        'msgstr "Il portale chiede <span lang=\\"en\\">job plan</span>"\n\n'
        'msgid "See docs/job plan.md and ``job plan``"\nmsgstr "Vedi docs/job plan.md"\n\n'
        'msgid "The peak throughput"\nmsgstr "La potenza di picco"\n\n'
        'msgid "one job plan"\nmsgid_plural "%(n)s job plans"\n'
        'msgstr[0] "un piano dei job"\nmsgstr[1] "%(n)s piani di lavoro"\n',
        encoding="utf-8",
    )
    terms = {"job plan": ["piano dei job", "piani dei job"]}
    assert term_misses([po], terms) == [
        "'job plan' -> 'piano dei job': 'Check the job plan' "
        "is 'Controlla il piano di lavoro'",
    ]
    # A longer term speaks for the shorter one it holds.
    assert term_misses([po], {"throughput": ["throughput"]}) == [
        "'throughput' -> 'throughput': 'The peak throughput' is 'La potenza di picco'"
    ]
    assert (
        term_misses(
            [po],
            {"throughput": ["throughput"], "peak throughput": ["potenza di picco"]},
        )
        == []
    )
    terms["job plans"] = ["piani dei job"]
    assert term_misses([po], terms) == [
        "'job plan' -> 'piano dei job': 'Check the job plan' "
        "is 'Controlla il piano di lavoro'",
        "'job plans' -> 'piani dei job': '%(n)s job plans' is '%(n)s piani di lavoro'",
    ]
