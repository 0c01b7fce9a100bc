"""The domain's translation markers on their own (no Django): constants stored in
English and read in the active language, remembered per language."""

import re
from dataclasses import dataclass

import pytest

from proposals.domain import i18n
from proposals.domain.i18n import Labels, Translated, english, join_and, join_or


@dataclass(frozen=True)
class Thing:
    slug: str
    title: str = Translated()
    note: str = Translated(default="")


@pytest.fixture
def pretend(monkeypatch):
    """A fake translation: upper case in "xx", English otherwise."""
    state = {"language": None, "calls": 0}

    def gettext(text):
        state["calls"] += 1
        return text.upper() if state["language"] == "xx" else text

    monkeypatch.setattr(i18n, "_gettext", gettext)
    monkeypatch.setattr(i18n, "_language", lambda: state["language"])
    monkeypatch.setattr(i18n, "_constants", {})
    return state


def test_translated_attribute_reads_in_the_active_language(pretend):
    thing = Thing("a", "Review")
    assert (thing.title, thing.note) == ("Review", "")
    pretend["language"] = "xx"
    assert thing.title == "REVIEW"
    assert english(thing, "title") == "Review"
    assert thing.note == ""  # empty text is never looked up


def test_labels_read_in_the_active_language(pretend):
    labels = Labels({"a": "Feasible"})
    pretend["language"] = "xx"
    assert labels["a"] == "FEASIBLE"
    assert dict(labels.items()) == {"a": "FEASIBLE"}
    assert labels.get("b", "other") == "other"
    assert labels.english("a") == "Feasible"


def test_constants_are_remembered_per_language_until_forgotten(pretend):
    thing = Thing("a", "Review")
    pretend["language"] = "xx"
    assert [thing.title, thing.title] == ["REVIEW", "REVIEW"]
    assert pretend["calls"] == 1
    pretend["language"] = None
    assert thing.title == "Review"
    assert pretend["calls"] == 2
    i18n.forget()
    pretend["language"] = "xx"
    assert thing.title == "REVIEW"
    assert pretend["calls"] == 3


def test_plurals_and_contexts_are_remembered_per_language_and_count(monkeypatch):
    """``ngettext`` is remembered per language, texts and count (the count picks
    the form), ``pgettext`` per language, context and text; both forgotten with
    the constants."""
    state = {"language": "xx", "calls": []}

    def ngettext(one, many, n):
        state["calls"].append(n)
        word = one if n == 1 else many
        return f"{state['language']}:{word}"

    def pgettext(context, text):
        state["calls"].append(context)
        return f"{state['language']}:{context}:{text}"

    monkeypatch.setattr(i18n, "_ngettext", ngettext)
    monkeypatch.setattr(i18n, "_pgettext", pgettext)
    monkeypatch.setattr(i18n, "_language", lambda: state["language"])
    monkeypatch.setattr(i18n, "_constants", {})
    node = ("{n} node", "{n} nodes")
    assert [i18n.ngettext(*node, n) for n in (1, 2, 1, 2)] == [
        "xx:{n} node",
        "xx:{n} nodes",
        "xx:{n} node",
        "xx:{n} nodes",
    ]
    assert state["calls"] == [1, 2]
    assert i18n.pgettext("month", "May") == i18n.pgettext("month", "May")
    assert i18n.pgettext("verb", "May") == "xx:verb:May"
    assert state["calls"] == [1, 2, "month", "verb"]
    state["language"] = "yy"  # another language is looked up again
    assert i18n.ngettext(*node, 2) == "yy:{n} nodes"
    i18n.forget()
    state["language"] = "xx"
    assert i18n.ngettext(*node, 1) == "xx:{n} node"
    assert state["calls"] == [1, 2, "month", "verb", 2, 1]
    with i18n.in_english():  # the English source, never looked up
        assert i18n.ngettext(*node, 3) == "{n} nodes"
        assert i18n.pgettext("month", "May") == "May"
    assert len(state["calls"]) == 6


def test_a_required_translated_field_stays_required():
    with pytest.raises(TypeError):
        Thing("a")


def test_lists_are_joined_by_the_language_pattern(pretend):
    assert join_and(["a"]) == "a"
    assert join_and(["a", "b", "c"]) == "a, b and c"
    assert join_or(["a", "b"]) == "a or b"
    assert join_or([]) == ""


def test_a_rules_description_is_its_docstring_read_in_the_active_language(pretend):
    """The docstring is the one source: the page reads it translated, the generated
    reference (docs/rules.md) reads ``english_description``."""
    from proposals.domain.findings import REGISTRY, SEVERITY_NAMES

    rule = REGISTRY["SCAL-4"]
    english_text = " ".join(rule.func.__doc__.split())
    assert rule.english_description == english_text == rule.description
    pretend["language"] = "xx"
    assert rule.description == english_text.upper()
    assert rule.english_description == english_text
    assert rule.severity_names == [SEVERITY_NAMES[s] for s in rule.severities]
    assert SEVERITY_NAMES["error"] == "ERROR"


def test_help_figures_are_remembered_per_language_format_and_terms(
    pretend, monkeypatch
):
    """``terms.figures`` is kept per (terms, language, number format): the same map
    while they stay, another when any of them changes; never a stale one."""
    from proposals.domain import numbers, terms

    # "xx" brackets each text (placeholders such as {items} stay usable).
    monkeypatch.setattr(
        i18n,
        "_gettext",
        lambda text: f"[{text}]" if pretend["language"] == "xx" else text,
    )

    shipped = terms.default_terms()
    english_figures = terms.figures(shipped)
    assert terms.figures(shipped) is english_figures  # remembered
    with pytest.raises(TypeError):
        english_figures["x"] = "y"  # shared, so read-only
    pretend["language"] = "xx"
    bracketed = terms.figures(shipped)
    assert bracketed is not english_figures
    countries = next(k for k in english_figures if k.endswith("_countries"))
    assert "[" not in english_figures[countries]
    assert "[" in bracketed[countries]
    with i18n.in_english():
        assert terms.figures(shipped) == english_figures
    pretend["language"] = None
    big = next(
        k for k, v in english_figures.items() if re.fullmatch(r"[\d,]+,\d{3}", v)
    )
    with numbers.using(numbers.NUMBER_FORMAT_BY_NAME["de_DE"]):
        german = terms.figures(shipped)
    assert "." in german[big] and german[big] != english_figures[big]
    other = dict(shipped)  # other terms (a new copy of the reference data)
    assert terms.figures(other) is not english_figures
    assert terms.figures(other) == english_figures
    i18n.forget()  # the catalogues changed
    assert terms.figures(shipped) is not english_figures
