"""What the applicant types is what is saved, or they are told: numbers in the
person's format, refused values kept and never called saved, rows saved whole, our
messages only, the GPU unit kept on the proposal."""

import re
from decimal import Decimal

import pytest
from django import forms as django_forms
from django.urls import reverse

from proposals import services
from proposals.forms import NumberField
from proposals.models import Preferences
from proposals.wizard.steps import STEPS, TABLE_FORMS
from tests.factories import JobTypeFactory, UserFactory
from tests.web.test_wizard import HX, selection_data, step_url

pytestmark = pytest.mark.django_db


def scalability_data(**extra):
    return {
        "scalability_narrative": "",
        "workload": "",
        "runtime_stability_pct": "",
        "autosave": "1",
        **extra,
    }


@pytest.fixture
def german(user):
    services.preferences_set(user=user, number_format="de")


def test_english_reader_sees_how_an_ambiguous_number_was_read(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, total_gpu_hours="5.001"),
        headers=HX,
    )
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("5001")
    assert "Read as 5,001 GPU-hours" in response.content.decode()


def test_german_format_reads_dots_as_groups_and_commas_as_decimals(
    user_client, proposal, german
):
    user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, total_gpu_hours="18.176", transfer_out_tb="0,2"),
        headers=HX,
    )
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("18176")
    assert proposal.transfer_out_tb == Decimal("0.2")
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    assert 'name="transfer_out_tb" value="0,2"' in page
    assert 'inputmode="decimal"' in page and 'type="number"' not in page


def test_garbage_is_refused_never_truncated(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, total_gpu_hours="12abc"),
        headers=HX,
    )
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("4000")
    assert "“12abc” is not a number" in response.content.decode()


@pytest.mark.parametrize(
    ("name", "typed", "message"),
    [
        ("total_gpu_hours", "-5", "Enter 0 or more: GPU-hours cannot be negative."),
        ("total_gpu_hours", "1e20", "is not a number"),
        ("storage_tb", "-3", "Enter 0 or more: Storage cannot be negative."),
        ("duration_months", "1000", "Enter at most 60: allocations last at most"),
        ("max_gpus_per_job", "2.5", "Enter a whole number."),
    ],
)
def test_refused_value_is_kept_shown_and_never_called_saved(
    user_client, proposal, name, typed, message
):
    url = step_url(proposal, "selection")
    content = user_client.post(
        url, selection_data(proposal, **{name: typed}), headers=HX
    ).content.decode()
    assert "Not saved: fix the highlighted field" in content
    assert 'data-state="refused"' in content
    assert 'data-testid="step-not-saved"' in content
    assert 'data-testid="stale-figures"' in content
    assert message in content
    proposal.refresh_from_db()
    assert proposal.refused_inputs[name]["text"] == typed
    # After a reload: the typed text, its message, the indicator.
    page = user_client.get(url).content.decode()
    assert f'name="{name}" value="{typed}"' in page
    assert message in page
    assert "Not saved: fix the highlighted field" in page
    # A valid value clears it.
    user_client.post(url, selection_data(proposal, **{name: "8"}), headers=HX)
    proposal.refresh_from_db()
    assert proposal.refused_inputs == {}
    page = user_client.get(url).content.decode()
    # (Every page carries the scripts' texts, "Not saved, retrying…" among them.)
    assert "Not saved: fix the highlighted field" not in page
    assert 'data-state="refused"' not in page


def test_half_edited_row_is_saved_whole_or_not_at_all(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, gpus=8, hours=4, count=10)
    url = step_url(proposal, "scalability")
    row = {
        f"jobs-{job.pk}-title": job.title,
        f"jobs-{job.pk}-gpus": "99999999",
        f"jobs-{job.pk}-hours": "99999",
        f"jobs-{job.pk}-count": "99999",
    }
    content = user_client.post(url, scalability_data(**row), headers=HX)
    content = content.content.decode()
    job.refresh_from_db()
    assert (job.gpus, job.hours, job.count) == (8, Decimal("4"), 10)
    assert "3,199,968" not in content
    assert 'data-testid="jobs-total" hx-swap-oob="true">320</span>' in content
    assert 'data-testid="job-figures-stale"' in content
    assert "saved with the rest of this row" in content
    # The held count survives a reload too, and the row saves once it is valid.
    page = user_client.get(url).content.decode()
    assert f'name="jobs-{job.pk}-count" value="99999"' in page
    row.update({f"jobs-{job.pk}-gpus": "16", f"jobs-{job.pk}-hours": "2"})
    user_client.post(url, scalability_data(**row), headers=HX)
    job.refresh_from_db()
    assert (job.gpus, job.hours, job.count) == (16, Decimal("2"), 99999)
    proposal.refresh_from_db()
    assert proposal.refused_inputs == {}


def test_gpu_unit_is_kept_on_the_proposal_through_other_steps(user_client, proposal):
    assert proposal.system.gcds_per_gpu == 2
    user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, max_gpus_per_job="16", gpu_unit="gcds"),
        headers=HX,
    )
    proposal.refresh_from_db()
    assert (proposal.gpu_unit, proposal.max_gpus_per_job) == ("gcds", 8)
    for step in STEPS:
        if step.slug in ("selection", "scalability", "review"):
            continue
        user_client.post(
            step_url(proposal, step.slug), {"autosave": "1", "title": "x"}, headers=HX
        )
        proposal.refresh_from_db()
        assert proposal.gpu_unit == "gcds", step.slug
    page = user_client.get(step_url(proposal, "scalability")).content.decode()
    assert 'id="gpu-unit-gcds" value="gcds" checked' in page


def test_every_wizard_number_is_read_by_our_parser():
    """No Django number field (and its max_digits messages) is left on any form."""
    for step in STEPS:
        form_classes = [step.form_class] if step.form_class else []
        form_classes += [TABLE_FORMS[kind] for kind in step.tables]
        for form_class in form_classes:
            form = form_class()
            for name, field in form.fields.items():
                assert not isinstance(
                    field, django_forms.DecimalField | django_forms.IntegerField
                ), (form_class.__name__, name)
                if name in ("gpus", "hours", "total_gpu_hours"):
                    assert isinstance(field, NumberField)


def test_text_too_long_gets_our_message(user_client, proposal):
    content = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, libraries="x" * 1001),
        headers=HX,
    ).content.decode()
    assert "Shorten this to at most 1,000 characters (it has 1001)." in content
    assert "Ensure this value" not in content


def test_signup_takes_the_number_format_from_the_browser(client, catalogue):
    client.post(
        reverse("signup"),
        {
            "username": "helga",
            "email": "helga@example.org",
            "password1": "a-long-enough-pass-123",
            "password2": "a-long-enough-pass-123",
        },
        headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"},
    )
    assert Preferences.objects.get(user__username="helga").number_format == "de_DE"


def test_settings_page_shows_and_changes_the_number_format(client, catalogue):
    user = UserFactory()
    client.force_login(user)
    url = reverse("account_settings")
    page = client.get(url, headers={"Accept-Language": "fi-FI"}).content.decode()
    selected = re.findall(r'<option value="([\w/+-]+)"[^>]*selected', page)
    # Before a choice: the browser's convention, and Brussels' clock.
    assert selected == ["fi_FI", "Europe/Brussels"]
    client.post(url, {"number_format": "de_CH", "time_zone": "Europe/Helsinki"})
    preferences = Preferences.objects.get(user=user)
    assert (preferences.number_format, preferences.time_zone) == (
        "de_CH",
        "Europe/Helsinki",
    )
    page = client.get(url, headers={"Accept-Language": "fi-FI"}).content.decode()
    selected = re.findall(r'<option value="([\w/+-]+)"[^>]*selected', page)
    assert selected == ["de_CH", "Europe/Helsinki"]
    assert "The portal text, the exports and the JSON file always use" in page
    client.post(url, {"number_format": "xx_YY", "time_zone": "Mars/Olympus"})
    assert Preferences.objects.get(user=user).number_format == "de_CH"


def _badges(page: str, step: str) -> str:
    return page.split(f'id="badges-{step}"')[1].split("</a>")[0]


def test_unvisited_steps_show_to_do_not_errors(user_client, user):
    proposal = services.proposal_create(owner=user, title="Fresh")
    page = user_client.get(step_url(proposal, "organisation")).content.decode()
    selection = _badges(page, "selection")
    assert "to do" in selection and "text-bg-danger" not in selection
    assert 'data-testid="todo-count"' in page
    assert "to do" in _badges(page, "organisation")  # not edited, not left yet
    # Once left (the tabs say which step was left) or edited, a step's open items
    # are shown as what they are.
    page = user_client.get(step_url(proposal, "selection") + "?from=organisation")
    assert "text-bg-danger" in _badges(page.content.decode(), "organisation")
    user_client.post(step_url(proposal, "selection"), {"autosave": "1"}, headers=HX)
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    assert "text-bg-danger" in _badges(page, "selection")
    proposal.refresh_from_db()
    assert proposal.visited_steps == ["organisation", "selection"]


def test_a_new_row_is_to_do_until_typed_in(user_client, proposal):
    proposal.visited_steps = ["scalability"]
    proposal.save()
    job = JobTypeFactory(proposal=proposal, title="", gpus=None, hours=None, count=None)
    page = user_client.get(step_url(proposal, "scalability")).content.decode()
    row_items = re.findall(
        rf'data-anchor="id_jobs-{job.pk}-\w+" data-css="(\w+)"', page
    )
    assert row_items and set(row_items) == {"secondary"}
    # Typed into: its open items are errors again.
    content = user_client.post(
        step_url(proposal, "scalability"),
        scalability_data(**{f"jobs-{job.pk}-gpus": "8", f"jobs-{job.pk}-title": ""}),
        headers=HX,
    ).content.decode()
    row_items = re.findall(
        rf'data-anchor="id_jobs-{job.pk}-\w+" data-css="(\w+)"', content
    )
    assert "danger" in row_items


def test_staff_still_see_every_finding_as_it_is(user_client, user):
    from proposals.live import live_context

    proposal = services.proposal_create(owner=user, title="Fresh")
    staff = live_context(proposal)
    assert staff["finding_counts"]["todo"] == 0
    assert staff["finding_counts"]["error"] == staff["assessment"].counts["error"] > 0
