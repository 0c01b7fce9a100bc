"""The Markdown export leaves ordinary numbers alone (issue 36: "0\\.75 TB") while a
line start that Markdown reads as a heading, list item, rule or underline is still
escaped, in the export a person downloads."""

import pytest
from django.urls import reverse

from proposals.exports import markdown
from tests.factories import ProposalFactory

NARRATIVE = (
    "0.75 TB of checkpoints per run\n"
    "-5 % after the fix, +3 % with overlap\n"
    "#42 in the queue\n"
    "1. first step\n"
    "2) second step\n"
    "- an item\n"
    "# A heading\n"
    "==="
)


def test_the_export_writes_decimal_numbers_as_typed(user, user_client):
    proposal = ProposalFactory(owner=user, scalability_narrative=NARRATIVE)
    text = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "0.75 TB of checkpoints per run\\\n" in text
    assert "\\\n-5 % after the fix, +3 % with overlap\\\n#42 in the queue\\\n" in text
    assert "0\\.75" not in text
    # What Markdown would read as structure is still text.
    for escaped in ("1\\. first step", "2\\) second step", "\\- an item"):
        assert f"\\\n{escaped}\\\n" in text
    assert "\\\n\\# A heading\\\n\\===" in text


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("0.75 TB", "0.75 TB"),
        ("3.5) GB", "3.5) GB"),
        ("-0.5 °C", "-0.5 °C"),
        ("+20 %", "+20 %"),
        ("#3 on the list", "#3 on the list"),
        ("####### seven", "####### seven"),
        ("1234567890. too long for a list", "1234567890. too long for a list"),
        ("1.", "1\\."),
        ("---", "\\---"),
        ("- - -", "\\- - -"),
        ("## h", "\\## h"),
        ("+ plus item", "\\+ plus item"),
    ],
)
def test_a_line_start_is_escaped_only_when_markdown_reads_it(raw, escaped):
    assert markdown.escape_text(raw) == escaped
