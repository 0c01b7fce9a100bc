"""The domain's translation markers on their own (no Django): constants stored in
English and read in the active language, remembered per language."""

from dataclasses import dataclass

import pytest

from proposals.domain import i18n
from proposals.domain.i18n import Labels, Translated, english, join_and, join_or


@dataclass(frozen=True)
class Thing:
    slug: str
    title: str = Translated()
    note: str = Translated("")


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


def test_a_required_translated_field_stays_required():
    with pytest.raises(TypeError):
        Thing("a")


def test_lists_are_joined_by_the_language_pattern(pretend):
    assert join_and(["a"]) == "a"
    assert join_and(["a", "b", "c"]) == "a, b and c"
    assert join_or(["a", "b"]) == "a or b"
    assert join_or([]) == ""
