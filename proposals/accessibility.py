"""The accessibility statement's facts (``/accessibility/``), defined once: what the
project's own browser tests check (each named by its file and test, so
``tests/web/test_accessibility_statement.py`` fails when a listed test is gone or
an axe test is not listed), what they do not cover (the known gaps), the standard
and the date of the statement. EU public-sector sites publish such a statement
(Directive (EU) 2016/2102; the standard is EN 301 549, which takes WCAG 2.1 level
AA for web pages). The operator's contact is a setting
(``DJANGO_ACCESSIBILITY_CONTACT``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.translation import gettext_lazy as _

# When the statement was last reviewed against the tests below: change it with them.
STATEMENT_DATE = date(2026, 12, 5)
STANDARD = "EN 301 549 V3.2.1"
GUIDELINES = "WCAG 2.1"
# Where the tests below run: the widths (CSS pixels) and the browser.
WIDTHS = (390, 1366)
BROWSER = "Chromium"


@dataclass(frozen=True)
class Check:
    """One kind of check the project runs on every change, and the tests that run
    it (``path::test`` in the repository)."""

    what: str
    how: str
    tests: tuple[str, ...]


CHECKS = (
    Check(
        what=_("Every page outside the wizard"),
        how=_(
            "the landing page, the guide, the glossary, the privacy notice, the "
            "proposal list, the exports, the account pages and the staff pages, "
            "signed out, as an applicant and as support staff: no serious or "
            "critical violation found by axe-core, at a phone's and a laptop's "
            "width"
        ),
        tests=(
            "tests/e2e/test_pages_accessible.py::test_every_page_fits_and_is_accessible",
            "tests/e2e/test_layout.py::test_applicant_pages_fit",
            "tests/e2e/test_applicant_path.py::test_guide_and_glossary_are_accessible",
            "tests/e2e/test_desk_scale.py::test_a_moved_job_row_reads_as_one_move",
            "tests/e2e/test_desk_scale.py::test_the_queue_search_finds_people",
        ),
    ),
    Check(
        what=_("Every step of the wizard"),
        how=_(
            "each step of a complete proposal, with its live figures, findings and "
            "chart: no serious or critical violation found by axe-core; controls "
            "are not cut off and the page does not scroll sideways"
        ),
        tests=(
            "tests/e2e/test_wizard_journey.py::test_every_step_is_accessible",
            "tests/e2e/test_compute_planning.py::test_estimate_compare_and_retarget",
            "tests/e2e/test_viewer_read_only.py::"
            "test_a_viewer_tries_every_control_and_changes_nothing",
        ),
    ),
    Check(
        what=_("German and French"),
        how=_(
            "the public and account pages in German and French at a phone's width: "
            "no serious or critical violation, and longer words do not break the "
            "layout"
        ),
        tests=(
            "tests/e2e/test_language_layout.py::test_visitor_pages_at_390px",
            "tests/e2e/test_language_layout.py::test_account_pages_in_german_at_390px",
        ),
    ),
    Check(
        what=_("Lists and review pages in use"),
        how=_(
            "the proposal list while proposals are duplicated, archived and "
            "deleted, and two staff members reviewing at once: no serious or "
            "critical violation on the pages they see"
        ),
        tests=(
            "tests/e2e/test_applicant_path.py::"
            "test_anonymous_visitors_learn_what_the_tool_is",
            "tests/e2e/test_applicant_path.py::"
            "test_duplicate_archive_and_delete_from_the_list",
            "tests/e2e/test_applicant_path.py::test_the_list_fits_a_phone_and_a_laptop",
            "tests/e2e/test_staff_pair.py::test_two_staff_members_in_parallel",
        ),
    ),
    Check(
        what=_("Keyboard"),
        how=_(
            "moving between steps with the keyboard puts the focus in the new "
            "step; a column header explains its word on keyboard focus; Tab and "
            "Enter in a table neither remove nor add a row by surprise; a table is "
            "pasted and typed with the keyboard; a read-only viewer moves through "
            "every step with the keyboard"
        ),
        tests=(
            "tests/e2e/test_focus_progress.py::"
            "test_keyboard_navigation_lands_focus_in_the_step",
            "tests/e2e/test_applicant_path.py::"
            "test_a_header_explains_its_word_on_keyboard_focus",
            "tests/e2e/test_autosave_focus.py::"
            "test_tabbing_onto_remove_while_an_autosave_waits_keeps_the_row",
            "tests/e2e/test_autosave_focus.py::"
            "test_enter_in_an_input_saves_the_step_and_adds_no_row",
            "tests/e2e/test_paste_table.py::"
            "test_paste_a_spreadsheet_and_a_markdown_plan_then_undo",
            "tests/e2e/test_viewer_read_only.py::"
            "test_a_viewer_tries_every_control_and_changes_nothing",
        ),
    ),
)

# What the tests above do not show, or show to be missing. Said plainly: a gap
# closed is removed here, with the test that shows it closed added above.
GAPS = (
    _(
        "The checks are automated. Automated tools find only part of the problems "
        "that WCAG describes; the wizard has not been audited by an accessibility "
        "expert, nor tested with screen readers (NVDA, JAWS, VoiceOver) or with "
        "people who use assistive technology."
    ),
    _(
        "Only serious and critical axe-core findings stop a change; moderate and "
        "minor ones are not checked."
    ),
    _(
        "The tests run in Chromium only, not in Firefox or Safari, and not with "
        "text enlarged to double size or with a Windows high-contrast theme."
    ),
    _(
        "The PDF export is not a tagged PDF (PDF/UA): a screen reader reads its "
        "text without headings or table structure. The same content is available "
        "as a web page and as Markdown."
    ),
    _(
        "The administration pages (/admin/) used by the operator's staff are "
        "Django's own and are not part of these tests."
    ),
    _(
        "The texts prepared for the EuroHPC portal stay in English in every "
        "interface language, because the portal takes English."
    ),
)


def tested_files() -> set[str]:
    """The files of every listed test (``path`` before ``::``)."""
    return {test.split("::")[0] for check in CHECKS for test in check.tests}
