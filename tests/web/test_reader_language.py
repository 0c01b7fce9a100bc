"""What the walk found left in English on the wizard and the staff page, each in the
reader's language now, while what is pasted into the portal stays English."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from proposals import exports, services
from proposals.domain.countries import local_names, name, sort_key
from proposals.forms import country_choices
from proposals.models import Proposal
from proposals.wizard.progress import wizard_progress
from tests.web.test_wizard import step_url

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


@pytest.fixture
def lumi(user):
    from proposals import domain
    from tests.web.conftest import EXAMPLES

    text = (EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8")
    return services.proposal_import(owner=user, document=domain.loads(text))


def test_progress_text_is_a_sentence_in_the_persons_language():
    progress = wizard_progress({}, {}, ["organisation", "selection"])
    with translation.override("de"):
        german = progress.text
    with translation.override("en-gb"):
        english = progress.text
    assert english == "2 of 5 steps complete, nothing to do"
    assert german == "2 von 5 Schritten erledigt, nichts zu tun"


def test_sidebar_and_live_bar_in_german(user_client, lumi):
    page = user_client.get(step_url(lumi, "scalability"), **GERMAN).content.decode()
    sidebar = page.split('id="live-findings"')[1]
    assert "What a reviewer would flag" not in page
    assert "Measured scaling, relative" not in page
    projection = re.search(r'data-testid="projection">(.*?)</p>', page, re.S)
    assert projection and projection.group(1).strip().startswith("Prognostizierte")
    assert "Bewertung" in page.split('data-testid="live-bar"')[1].split("</div>")[0]
    assert "Gemessene Skalierung" in sidebar


def test_gpu_unit_word_is_translated_and_handed_to_the_toggle(user_client, lumi):
    page = user_client.get(
        step_url(lumi, "scalability"), HTTP_ACCEPT_LANGUAGE="fr"
    ).content.decode()
    assert "data-gpu-unit-label>GPU<" in page
    assert "data-gpu-unit-label>GPUs<" not in page
    if 'name="gpu_unit"' in page:  # LUMI's GPUs have two GCDs each
        assert 'data-unit-label="GCD"' in page and 'data-unit-label="GPU"' in page


def test_countries_in_the_persons_language_sorted_by_that_name():
    with translation.override("de"):
        groups = dict(country_choices()[1:])
    others = groups[next(g for g in groups if g != "")]  # any group
    every = [pair for members in groups.values() for pair in members]
    labels = dict(every)
    assert labels["DE"] == "Deutschland" and labels["AT"] == "Österreich"
    assert (
        labels["CD"]
        == local_names("de")["CD"]
        != "Congo, The Democratic Republic of the"
    )
    for members in groups.values():
        shown = [label for _, label in members]
        assert shown == sorted(shown, key=sort_key)
    assert others  # the codes stay the stored values
    assert {code for code, _ in every} >= {"DE", "AT", "CD", "FR"}
    with translation.override("en-gb"):
        english = dict(p for m in dict(country_choices()[1:]).values() for p in m)
        assert english["DE"] == "Germany"
        assert name("DE") == "Germany"
    with translation.override("fr"):
        assert name("DE") == "Allemagne"


def test_sort_key_ignores_case_and_accents():
    names = ["Zypern", "Österreich", "Albanien", "österreich-ungarn", "Ägypten"]
    assert sorted(names, key=sort_key) == [
        "Ägypten",
        "Albanien",
        "Österreich",
        "österreich-ungarn",
        "Zypern",
    ]


def test_staff_page_tables_follow_the_reader_portal_text_stays_english(
    user, client, staff_user, lumi
):
    services.review_submit(proposal=lumi, user=user)
    client.force_login(staff_user)
    page = client.get(
        reverse("proposals:staff_review", args=[lumi.pk]), **GERMAN
    ).content.decode()
    job_plan = page.split('data-testid="job-plan-table"')[1].split("</table>")[0]
    assert "Jobtyp" in job_plan and "Stunden pro Job" in job_plan
    assert "Hours per job" not in job_plan
    scaling = page.split('data-testid="scaling-table-review"')[1].split("</table>")[0]
    assert "Effizienz" in scaling and ">Efficiency<" not in scaling
    # The portal's field names and text are marked English, and the page says so.
    assert re.search(r'<h4 [^>]*lang="en-GB"[^>]*>Total GPU-hours</h4>', page)
    assert 'data-testid="portal-english-note"' in page
    pasted = re.findall(r'<pre class="portal-text[^"]*"[^>]*lang="en-GB"', page)
    assert pasted
    # The portal text itself is the English one, whatever the reader's language.
    source = exports.source_for(Proposal.objects.get(pk=lumi.pk))
    with translation.override("de"):
        blocks = exports.portal_for(source)
    text = "\n".join(b.text for s in blocks for b in s.blocks)
    assert "Hours per job" in text and "Stunden pro Job" not in text


def test_export_page_marks_the_portal_names_english(user_client, lumi):
    page = user_client.get(
        reverse("proposals:export_portal", args=[lumi.pk]), **GERMAN
    ).content.decode()
    assert re.search(r'<h2 [^>]*lang="en-GB"[^>]*>[^<]*Scalability', page)
    assert re.search(r'<h3 [^>]*lang="en-GB"[^>]*>Total GPU-hours</h3>', page)


def test_step_comments_fragment_declares_its_language(user, user_client, submitted):
    url = reverse("proposals:review_step_comments", args=[submitted.pk, "selection"])
    page = user_client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert re.match(r'\s*<section [^>]*lang="fr"', page)


def test_sidebar_says_no_projection_is_needed_within_the_measured_range(
    user_client, lumi
):
    """Issue 32: a largest job of 4 GPUs, measured at 4, 8 and 16, was "Projected
    100 %–100 % efficiency ... (0.25x beyond the data)"."""
    lumi.max_gpus_per_job = 4
    lumi.save()
    for headers, words in (
        ({}, "No projection is needed: the largest job, 4 GPUs, is within"),
        (GERMAN, "Keine Prognose nötig: Der größte Job mit 4 GPUs liegt innerhalb"),
    ):
        page = user_client.get(step_url(lumi, "scalability"), **headers)
        found = re.search(
            r'data-testid="projection">(.*?)</p>', page.content.decode(), re.S
        )
        assert found and words in found.group(1)
        assert "beyond the data" not in found.group(1)
