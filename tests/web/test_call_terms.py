"""Call terms as data in the database: editing a bound moves the tier and changes
the figures the wizard, the exports and the admin show."""

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.urls import reverse

from proposals.assess import assess_proposal, terms_from_db
from proposals.models import CallFamily, CallMode, Cluster, CountryEligibility
from tests.factories import JobTypeFactory, ProposalFactory

pytestmark = pytest.mark.usefixtures("catalogue")


def playground():
    return CallMode.objects.get(family__slug="industrial_innovation", slug="playground")


def test_database_terms_are_the_shipped_ones():
    terms = terms_from_db()
    modes = terms["industrial_innovation"].modes
    assert [(m.slug, m.max_hours) for m in modes] == [
        ("playground", 5000),
        ("fast_lane", 50000),
        ("large_scale", None),
    ]
    assert modes[0].source("max_hours").checked == "2026-12-02"
    assert terms["ai_for_science"].modes[0].durations_months == (6,)


def test_editing_a_bound_moves_the_tier_and_the_help(user_client, user):
    proposal = ProposalFactory(owner=user, total_gpu_hours=7000)
    assert assess_proposal(proposal).tier == "fast_lane"
    step = reverse("proposals:step", args=[proposal.pk, "selection"])
    page = user_client.get(step).content.decode()
    assert "5,001 to 50,000 GPU-hours is Fast Lane" in page
    mode = playground()
    mode.max_hours = 8000
    mode.save()
    assert assess_proposal(proposal).tier == "playground"
    page = user_client.get(step).content.decode()
    assert "Up to 8,000 GPU-hours is Playground" in page
    assert "7,000 GPU-hours is a Playground request" in page
    assert "5,000" not in page


def test_editing_a_duration_changes_the_exports(user_client, user):
    proposal = ProposalFactory(owner=user, duration_months=3)
    url = reverse("proposals:export_markdown", args=[proposal.pk])
    assert "TIER-5" not in user_client.get(url).content.decode()
    mode = playground()
    mode.durations_months = [6]
    mode.save()
    assert "TIER-5" in user_client.get(url).content.decode()


def test_a_fact_without_check_date_is_refused():
    mode = playground()
    mode.sources = {"max_hours": {"source": "BSC guide", "checked": "last week"}}
    with pytest.raises(ValidationError) as error:
        mode.full_clean()
    assert "needs a check date" in str(error.value)


def test_admin_edits_the_terms(client):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    family = CallFamily.objects.get(slug="industrial_innovation")
    response = client.get(
        reverse("admin:proposals_callfamily_change", args=[family.pk])
    )
    assert response.status_code == 200
    assert "max_extrapolation_factor" in response.content.decode()


def test_sidebar_and_exports_show_node_hours(user_client, user):
    proposal = ProposalFactory(
        owner=user, system=Cluster.objects.get(slug="leonardo-booster")
    )
    JobTypeFactory(proposal=proposal, gpus=8, hours=10, count=50)  # 4,000 GPU-hours
    step = reverse("proposals:step", args=[proposal.pk, "selection"])
    page = user_client.get(step).content.decode()
    assert 'data-testid="requested-billing">1,000<' in page
    assert 'data-testid="plan-billing">1,000<' in page
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "Requested in node-hours" in markdown and "Node-hours" in markdown
    portal = user_client.get(
        reverse("proposals:export_portal", args=[proposal.pk])
    ).content.decode()
    assert "1,000 node-hours on Leonardo Booster" in portal


def test_lumi_shows_no_second_unit(user_client, user):
    proposal = ProposalFactory(owner=user)
    step = reverse("proposals:step", args=[proposal.pk, "selection"])
    assert "requested-billing" not in user_client.get(step).content.decode()


def test_changing_the_billing_unit_in_the_admin_data_changes_the_figure(
    user_client, user
):
    cluster = Cluster.objects.get(slug="lumi-g")
    cluster.billing_unit = "node_hours"
    cluster.billing_unit_gpu_hours = 4
    cluster.save()
    proposal = ProposalFactory(owner=user, system=cluster)  # 4,000 GPU-hours
    step = reverse("proposals:step", args=[proposal.pk, "selection"])
    assert (
        'data-testid="requested-billing">1,000<'
        in user_client.get(step).content.decode()
    )


# --- Countries ----------------------------------------------------------------------


def test_country_picker_offers_every_iso_country(user_client, user):
    proposal = ProposalFactory(owner=user)
    page = user_client.get(
        reverse("proposals:step", args=[proposal.pk, "organisation"])
    ).content.decode()
    for name in ("Finland", "Türkiye", "Moldova", "Switzerland", "Kenya", "Peru"):
        assert f">{name}</option>" in page
    assert page.count("<option") > 240


def test_country_status_is_data_the_admin_edits(user_client, user):
    """Kenya becomes associated (a made-up edit): ELIG-3 goes quiet, and the
    status shows its source and date in the admin list."""
    proposal = ProposalFactory(owner=user, organisation_country="KE", vat_number="")
    assert "ELIG-3" in {f.code for f in assess_proposal(proposal).findings}
    CountryEligibility.objects.create(
        code="KE",
        status="h2020_associated",
        programme="Horizon 2020",
        source="test",
        checked="2026-12-02",
    )
    assert "ELIG-3" not in {f.code for f in assess_proposal(proposal).findings}


def test_country_code_must_be_iso():
    row = CountryEligibility(
        code="XX", status="eu_member", source="x", checked="2026-12-02"
    )
    with pytest.raises(ValidationError):
        row.full_clean()


def test_country_admin_lists_sources(client):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    page = client.get(reverse("admin:proposals_countryeligibility_changelist"))
    assert page.status_code == 200 and "Türkiye" in page.content.decode()


def test_organisation_help_reads_each_familys_country_lists(user_client, proposal):
    url = reverse("proposals:step", args=[proposal.pk, "organisation"])
    content = user_client.get(url).content.decode()
    assert "{industrial_innovation_countries}" not in content
    assert (
        "AI for Science and Collaborative EU Projects: EU member state or associated "
        "to Horizon Europe" in content
    )
    assert "academic and public-sector organisations are not eligible" not in content
