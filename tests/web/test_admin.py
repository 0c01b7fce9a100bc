"""The Django admin: read-only for the applicant's content, pages that do not grow
with the number of users, and a demo staff account that is not a superuser."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)


@pytest.fixture
def admin_client(client, catalogue):
    client.force_login(User.objects.create_superuser("root", "root@example.eu", "x"))
    return client


def _full_proposal(owner):
    proposal = ProposalFactory(owner=owner)
    codes = [CodeEntryFactory(proposal=proposal, position=i) for i in range(2)]
    for i in range(3):
        ScalingMeasurementFactory(proposal=proposal, code=codes[0], gpus=4 * 2**i)
    JobTypeFactory(proposal=proposal)
    UsageMonthFactory(proposal=proposal)
    return proposal


def _measure(client, url):
    client.get(url)  # the first request also loads the session
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries), len(response.content)


def test_proposal_change_page_does_not_grow_with_other_users(admin_client, user):
    """Each measurement row used to list every user's code entries in a dropdown
    (7.6 MB, 51 s on a large database). Other users' rows must not change the page."""
    proposal = _full_proposal(user)
    url = reverse("admin:proposals_proposal_change", args=[proposal.pk])
    queries_before, size_before = _measure(admin_client, url)

    other = ProposalFactory()
    CodeEntryFactory.create_batch(200, proposal=other)
    queries_after, size_after = _measure(admin_client, url)

    print(
        f"admin change page: {queries_before} -> {queries_after} queries, "
        f"{size_before} -> {size_after} bytes"
    )
    assert queries_after == queries_before
    assert size_after == size_before
    assert size_after < 150_000


@pytest.mark.parametrize(
    "model", ["proposal", "codeentry", "scalingmeasurement", "jobtype", "usagemonth"]
)
def test_admin_lists_do_not_grow_with_rows(admin_client, model, catalogue):
    url = reverse(f"admin:proposals_{model}_changelist")
    for _ in range(2):
        _full_proposal(ProposalFactory().owner)
    queries_before, _ = _measure(admin_client, url)
    for _ in range(5):
        _full_proposal(ProposalFactory().owner)
    queries_after, _ = _measure(admin_client, url)
    assert queries_after == queries_before


def test_admin_cannot_overwrite_the_applicants_content(admin_client, user):
    """Not even a superuser edits a proposal or its rows through the admin: such a
    save would skip the revision check and be reverted by (or revert) an autosave."""
    proposal = _full_proposal(user)
    code = proposal.codes.first()
    before = (proposal.title, code.name, proposal.revision)
    page = admin_client.get(
        reverse("admin:proposals_proposal_change", args=[proposal.pk])
    )
    assert b'name="title"' not in page.content  # shown as text, not as a field
    response = admin_client.post(
        reverse("admin:proposals_proposal_change", args=[proposal.pk]),
        {"title": "Changed by staff", "owner": user.pk},
    )
    assert response.status_code == 403
    response = admin_client.post(
        reverse("admin:proposals_codeentry_change", args=[code.pk]),
        {"name": "Changed", "proposal": proposal.pk, "role": "main", "position": 0},
    )
    assert response.status_code == 403
    for model in (
        "proposal",
        "codeentry",
        "scalingmeasurement",
        "jobtype",
        "usagemonth",
    ):
        add = admin_client.get(reverse(f"admin:proposals_{model}_add"))
        assert add.status_code == 403, model
    assert (
        admin_client.post(
            reverse("admin:proposals_proposal_delete", args=[proposal.pk]),
            {"post": "yes"},
        ).status_code
        == 403
    )
    proposal.refresh_from_db()
    code.refresh_from_db()
    assert (proposal.title, code.name, proposal.revision) == before


def test_the_catalogue_stays_editable(admin_client, catalogue):
    from proposals.models import Cluster

    lumi = Cluster.objects.get(slug="lumi-g")
    page = admin_client.get(reverse("admin:proposals_cluster_change", args=[lumi.pk]))
    assert b'name="gpu_power_w"' in page.content


def test_account_profiles_are_listed_read_only(admin_client, user):
    """Support can see whether an applicant confirmed their address; nobody edits
    the record by hand (the account services write it)."""
    from proposals.models import AccountProfile

    AccountProfile.objects.update_or_create(
        user=user, defaults={"email": "someone@example.eu"}
    )
    url = reverse("admin:proposals_accountprofile_changelist")
    page = admin_client.get(url, {"q": "someone@example"})
    assert page.status_code == 200
    assert "someone@example.eu" in page.content.decode()
    assert (
        admin_client.get(reverse("admin:proposals_accountprofile_add")).status_code
        == 403
    )


def test_pdf_exports_are_listed_for_support_and_failed_ones_retried(admin_client):
    """Support sees every stored PDF (its proposal, version, status, size and the
    renderer's error), never its content; "Retry" queues a failed one again and
    leaves a ready one alone. Nobody adds, edits or deletes one by hand."""
    from django_tasks_db.models import DBTaskResult

    from proposals.models import PdfExport

    proposal = ProposalFactory(title="Kestrel vision models")
    ready = PdfExport.objects.create(
        proposal=proposal,
        content_key="a" * 64,
        status=PdfExport.Status.DONE,
        pdf=b"%PDF-" + b"x" * 4096,
        review_revision=2,
    )
    failed = PdfExport.objects.create(
        proposal=proposal,
        content_key="b" * 64,
        status=PdfExport.Status.FAILED,
        html="<p>kept for a retry</p>",
        error="cannot load library 'libpangoft2-1.0.so.0'",
    )
    url = reverse("admin:proposals_pdfexport_changelist")
    page = admin_client.get(url, {"q": "kestrel"}).content.decode()
    assert "Kestrel vision models" in page and "libpangoft2" in page
    assert ">r2<" in page and ">draft<" in page and "4 KB" in page
    assert "%PDF-" not in page and "kept for a retry" not in page
    tasks = DBTaskResult.objects.count()
    response = admin_client.post(
        url,
        {"action": "retry", "_selected_action": [ready.pk, failed.pk]},
        follow=True,
    )
    assert "1 PDF(s) queued again" in response.content.decode()
    failed.refresh_from_db()
    ready.refresh_from_db()
    assert failed.status == PdfExport.Status.PENDING and failed.error == ""
    assert ready.status == PdfExport.Status.DONE and ready.pdf.startswith(b"%PDF-")
    assert DBTaskResult.objects.count() == tasks + 1
    change = reverse("admin:proposals_pdfexport_change", args=[failed.pk])
    assert "kept for a retry" not in admin_client.get(change).content.decode()
    assert admin_client.get(reverse("admin:proposals_pdfexport_add")).status_code == 403
    delete = reverse("admin:proposals_pdfexport_delete", args=[failed.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
