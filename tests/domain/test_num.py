"""``numbers.num``: the one number printer that messages, pages and exports share
(issue 21: ``num`` was defined three times)."""

from proposals.domain import numbers
from proposals.domain.numbers import MISSING, NUMBER_FORMAT_BY_NAME, num, using
from proposals.domain.rulebook import common


def test_num_groups_in_the_active_format_with_at_most_the_places_asked():
    with using(NUMBER_FORMAT_BY_NAME["en"]):
        assert num(18176) == "18,176"
        assert num(0.126) == "0.13"
        assert num(0.126, "1") == "0.1"  # a template filter's argument is text
    with using(NUMBER_FORMAT_BY_NAME["de"]):
        assert num(18176.5, 1) == "18.176,5"


def test_nothing_prints_as_missing():
    assert num(None) == num("") == MISSING


def test_the_rule_families_print_with_the_same_function():
    assert common.num is numbers.num
