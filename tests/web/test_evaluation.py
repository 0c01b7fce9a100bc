"""One evaluation per request (proposals/evaluation.py): the wizard, the staff
review page and the exports each read, convert and assess a proposal once; the
staff page serialises it once; the page that sends a proposal for review draws no
chart it does not show."""

import pytest
from django.test import Client
from django.urls import reverse

from proposals import domain, services
from proposals.domain import jsonformat
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    cluster,
)
from tests.web.test_live import page_data

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture
def full(user):
    proposal = ProposalFactory(owner=user, system=cluster(), total_gpu_hours=5000)
    code = CodeEntryFactory(proposal=proposal, position=0)
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280)]):
        ScalingMeasurementFactory(
            proposal=proposal,
            code=code,
            gpus=gpus,
            throughput=throughput,
            position=position,
        )
    JobTypeFactory(proposal=proposal, position=0)
    return proposal


@pytest.fixture
def counted(monkeypatch):
    """How often a request assesses a proposal and serialises it to JSON."""
    calls = {"assess": 0, "dump": 0}
    assess, dump = domain.assess, jsonformat.dump

    def counting_assess(*args, **kwargs):
        calls["assess"] += 1
        return assess(*args, **kwargs)

    def counting_dump(*args, **kwargs):
        calls["dump"] += 1
        return dump(*args, **kwargs)

    monkeypatch.setattr(domain, "assess", counting_assess)
    monkeypatch.setattr(jsonformat, "dump", counting_dump)
    return calls


def test_an_autosave_assesses_once(user_client, full, counted):
    data = page_data(full, "scalability", scalability_narrative="Once.")
    url = reverse("proposals:step", args=[full.pk, "scalability"])
    assert user_client.post(url, data, headers=HX).status_code == 200
    assert counted["assess"] == 1


def test_the_staff_page_assesses_and_serialises_once(full, staff_user, counted):
    services.review_submit(proposal=full, user=full.owner, note="")
    staff = Client()
    staff.force_login(staff_user)
    counted.update(assess=0, dump=0)
    response = staff.get(reverse("proposals:staff_review", args=[full.pk]))
    assert response.status_code == 200
    assert 'id="live-chart"' in response.content.decode()
    assert (counted["assess"], counted["dump"]) == (1, 1)


def test_an_export_assesses_once(user_client, full, counted):
    url = reverse("proposals:export_markdown", args=[full.pk])
    assert user_client.get(url).status_code == 200
    assert counted["assess"] == 1


def test_sending_for_review_draws_no_chart(user_client, full, monkeypatch):
    from proposals import charts

    def no_drawing(*args, **kwargs):
        raise AssertionError("the send page shows no chart")

    monkeypatch.setattr(charts, "cached_chart", no_drawing)
    response = user_client.get(reverse("proposals:review_send", args=[full.pk]))
    assert response.status_code == 200
    assert "review" in response.content.decode()


def test_the_rows_read_at_once_are_kept_without_django_private_cache(
    user, django_assert_num_queries
):
    """``proposal_get_for_editing`` reads the four tables in one query and keeps
    the rows as ``table_rows`` (not Django's ``_prefetched_objects_cache``):
    ``rows_of`` then asks nothing, in the rows' order."""
    from proposals import selectors
    from proposals.table_rows import rows_of
    from tests.factories import JobTypeFactory, ProposalFactory

    proposal = ProposalFactory(owner=user)
    second = JobTypeFactory(proposal=proposal, position=1, title="second")
    first = JobTypeFactory(proposal=proposal, position=0, title="first")
    edited = selectors.proposal_get_for_editing(user=user, pk=proposal.pk)
    assert not hasattr(edited, "_prefetched_objects_cache")
    with django_assert_num_queries(0):
        jobs = rows_of(edited, "jobs")
        assert rows_of(edited, "schedule") == []
    assert [job.pk for job in jobs] == [first.pk, second.pk]
    assert jobs[0].proposal is edited


@pytest.mark.parametrize("lock", [False, True])
@pytest.mark.parametrize("chosen", [None, ("de_CH", "Europe/Zurich")])
def test_the_compiled_read_is_the_orms_read_field_for_field(user, lock, chosen):
    """The wizard's proposal read runs SQL compiled once (``selectors.compiled``):
    every column and both annotations come back as the ORM's own read gives them
    (dates aware, decimals, JSON, choices), for the owner only; nobody else's and
    a deleted proposal are ``None``."""
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from proposals import selectors
    from proposals.models import Preferences, Proposal
    from tests.factories import UserFactory

    if chosen:
        Preferences.objects.update_or_create(
            user=user, defaults={"number_format": chosen[0], "time_zone": chosen[1]}
        )
    from decimal import Decimal

    demo = ProposalFactory(  # every kind of column filled
        owner=user,
        system=cluster(),
        total_gpu_hours=Decimal("18176.5"),
        storage_tb=Decimal("12.25"),
        runtime_stability_pct=Decimal("97.5"),
        ongoing_eurohpc_project=True,
        refused_inputs={"scalability": {"jobs-0-gpus": "4,5x"}},
        visited_steps=["selection", "scalability"],
        archived_at=timezone.now(),
        title="Détection de défauts",
    )
    ProposalFactory(owner=user)
    with transaction.atomic():
        edited = selectors.proposal_get_for_editing(user=user, pk=demo.pk, lock=lock)
        other = selectors.proposal_get_for_editing(
            user=UserFactory(), pk=demo.pk, lock=lock
        )
    assert other is None
    expected = Proposal.objects.annotate(
        owner_number_format=F("owner__preferences__number_format"),
        owner_time_zone=F("owner__preferences__time_zone"),
    ).get(pk=demo.pk)
    for field in Proposal._meta.concrete_fields:
        mine, theirs = getattr(edited, field.attname), getattr(expected, field.attname)
        assert (mine, type(mine)) == (theirs, type(theirs)), field.name
    assert edited.owner_number_format == expected.owner_number_format
    assert edited.owner_time_zone == expected.owner_time_zone
    assert (edited.owner_number_format is None) == (chosen is None)
    assert edited._state.adding is False and edited._state.db == "default"
    Proposal.objects.filter(pk=demo.pk).update(deleted_at=timezone.now())
    assert selectors.proposal_get_for_editing(user=user, pk=demo.pk) is None


def _staff_page(staff_user, proposal):
    staff = Client()
    staff.force_login(staff_user)
    response = staff.get(reverse("proposals:staff_review", args=[proposal.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_draft_read_again_is_not_assessed_again(full, staff_user, counted):
    """Two staff views of the same draft: one assessment between them
    (evaluation.assessed)."""
    services.review_submit(proposal=full, user=full.owner, note="")
    counted.update(assess=0)
    _staff_page(staff_user, full)
    _staff_page(staff_user, full)
    assert counted["assess"] == 1


def test_any_change_of_the_content_is_assessed_again(full, staff_user, counted):
    """The key is the content read, so a write that bypasses the services (the shell,
    a bulk update: no revision moved) is assessed anew, rows included."""
    services.review_submit(proposal=full, user=full.owner, note="")
    hours = 'data-testid="requested-hours">'
    counted.update(assess=0)
    first = _staff_page(staff_user, full).split(hours)[1].split("<")[0]
    type(full).objects.filter(pk=full.pk).update(total_gpu_hours=123457)
    second = _staff_page(staff_user, full).split(hours)[1].split("<")[0]
    assert second != first and second.replace(",", "").startswith("123457")
    full.jobs.update(gpus=16)
    _staff_page(staff_user, full)
    # One per view for the draft; the latest revision's snapshot, assessed too once
    # the draft differs from it, is the first view's content: kept.
    assert counted["assess"] == 3


def test_each_reader_convention_has_its_own_assessment(full):
    """The texts an assessment writes follow the reader's language and number
    format: a German reader of the same draft is not given the English texts."""
    from django.utils import translation

    from proposals import assess
    from proposals.domain import numbers
    from proposals.evaluation import Reference, assessed

    full = type(full).objects.get(pk=full.pk)
    proposal = assess.proposal_to_domain(full)
    reference = Reference.cached()

    def texts(**convention):
        language = convention.get("language", "en-gb")
        written = numbers.NUMBER_FORMAT_BY_NAME[convention.get("numbers", "en")]
        with translation.override(language), numbers.using(written):
            assessment = assessed(proposal, reference)
            assert assessed(proposal, reference) is assessment  # kept
            return assessment, [f.message for f in assessment.findings]

    english, english_texts = texts()
    german, german_texts = texts(language="de")
    assert german is not english and german_texts != english_texts
    german_numbers, german_numbers_texts = texts(numbers="de")
    assert german_numbers is not english and german_numbers_texts != english_texts


def test_reference_data_read_fresh_is_never_taken_from_memory(full, counted):
    """The exports read the reference data fresh and assess every time."""
    from proposals.evaluation import Evaluation, Reference

    full = type(full).objects.get(pk=full.pk)
    counted.update(assess=0)
    Evaluation.of(full, Reference.fresh())
    Evaluation.of(full, Reference.fresh())
    assert counted["assess"] == 2
    cached = Reference.cached()
    assert (
        Evaluation.of(full, cached).assessment is Evaluation.of(full, cached).assessment
    )
