"""Every URL of a proposal against every kind of visitor of its team.

The URLs are read from the URL configuration (every pattern that takes a
proposal's ``pk``), so a new one fails ``test_every_proposal_url_is_in_the_matrix``
until it is given a row here saying which capability (``domain.team``) each of its
methods needs. Each visitor then sends every request, GET and POST, plain and
htmx:

- the owner, an editor and a viewer get what their role allows (``allows``) and a
  403 for the rest; an invited person who has not accepted, a removed member and a
  stranger get 404 everywhere; anonymous visitors go to the login page;
- a method a view does not take is 405 for every signed-in visitor alike;
- a refusal writes nothing: every table of the app is the same before and after;
  and nothing a viewer may do changes the proposal or its rows.

Staff pages (``STAFF_URLS``) are only checked here to be closed (404) to the
applicant's side; the staff's own visitors (support staff, staff with a declared
conflict of interest) belong to the staff tests.
"""

import re
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from proposals.domain.team import Capability, allows
from proposals.models import Invitation, LogReading, Membership, PdfExport, Proposal
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)
from tests.web.team_visitors import TABLES, VISITORS, member, proposal_data, visitor

pytestmark = pytest.mark.django_db

C = Capability
# A page of the support staff: closed to everybody on the applicant's side.
STAFF = "staff"
# Staff URLs that take a proposal. The staff side's tests (support staff, staff
# with a declared conflict of interest with the proposal's organisation) extend
# their own matrix with these; here they only must stay closed to applicants.
STAFF_URLS = frozenset(
    {
        "proposals:staff_review",
        "proposals:staff_comment",
        "proposals:staff_set_status",
        "proposals:staff_diff",
        "proposals:staff_assign",
        "proposals:staff_assess",
        "proposals:staff_reply_insert",
    }
)
STEPS = ("organisation", "selection", "codes", "scalability", "optimisation", "review")


@dataclass(frozen=True)
class Entry:
    """One request shape of a URL: its path arguments (besides ``pk``; a callable
    takes the ``Ids`` of the proposal and the visitor), what each method needs
    (``None``: the view does not take the method) and what a POST sends."""

    name: str
    get: object = None
    post: object = None
    kwargs: object = field(default_factory=dict)
    data: dict = field(default_factory=dict)


def _row(step, kind, operation, row=None):
    def kwargs(ids):
        found = {"step": step, "kind": kind, "operation": operation}
        if row:
            found["row"] = getattr(ids, row)
        return found

    return kwargs


# Every URL that takes a proposal, with what each method needs. Destructive ones
# (delete) come last: the owner's walk goes on after archiving.
MATRIX = [
    Entry("proposals:detail", get=C.READ),
    Entry("proposals:edit", get=C.READ),
    Entry("proposals:proposal_cutoff_ics", get=C.READ),
    *[
        Entry(
            "proposals:step",
            get=C.READ,
            post=C.EDIT,
            kwargs={"step": step},
            data={"autosave": "1", "save": "1", "title": "Changed by the visitor"},
        )
        for step in STEPS
    ],
    Entry("proposals:row", post=C.EDIT, kwargs=_row("codes", "codes", "add")),
    Entry("proposals:row", post=C.EDIT, kwargs=_row("scalability", "jobs", "add")),
    Entry(
        "proposals:row",
        post=C.EDIT,
        kwargs=_row("scalability", "measurements", "down", "measurement"),
    ),
    Entry(
        "proposals:row", post=C.EDIT, kwargs=_row("scalability", "jobs", "up", "job")
    ),
    Entry(
        "proposals:row",
        post=C.EDIT,
        kwargs=_row("scalability", "schedule", "discard", "usage"),
    ),
    Entry(
        "proposals:row",
        post=C.EDIT,
        kwargs=_row("scalability", "jobs", "restore", "job"),
    ),
    Entry(
        "proposals:row",
        post=C.EDIT,
        kwargs=_row("codes", "codes", "delete", "code"),
    ),
    Entry("proposals:chart", get=C.READ, kwargs=lambda ids: {"key": ids.chart}),
    Entry("proposals:review_status", get=C.READ),
    Entry("proposals:review_send", get=C.SEND, post=C.SEND, data={"note": "Look"}),
    Entry(
        "proposals:review_comment",
        post=C.COMMENT,
        data={"section": "selection", "body": "A question from the visitor"},
    ),
    Entry(
        "proposals:review_step_comments", get=C.READ, kwargs={"section": "selection"}
    ),
    Entry("proposals:export_portal", get=C.EXPORT),
    Entry("proposals:export_markdown", get=C.EXPORT),
    Entry("proposals:export_markdown_view", get=C.EXPORT),
    Entry("proposals:export_pdf", get=C.EXPORT),
    Entry(
        "proposals:export_pdf_status",
        get=C.EXPORT,
        kwargs=lambda ids: {"export_id": ids.pdf},
    ),
    Entry(
        "proposals:export_pdf_file",
        get=C.EXPORT,
        kwargs=lambda ids: {"export_id": ids.pdf_file},
    ),
    Entry(
        "proposals:export_pdf_retry",
        post=C.EXPORT,
        kwargs=lambda ids: {"export_id": ids.pdf},
    ),
    Entry("proposals:export_json", get=C.EXPORT),
    Entry("proposals:import_json_revision", get=C.EDIT, post=C.EDIT),
    *[
        Entry(
            "proposals:paste",
            get=C.EDIT,
            post=C.EDIT,
            kwargs={"kind": kind},
            data={"paste": "1", f"paste-{kind}-text": text},
        )
        for kind, text in (
            ("measurements", "GPUs\tthroughput\n4\t100\n8\t190\n"),
            ("jobs", "title\tGPUs\thours\tcount\nEval\t8\t2\t10\n"),
            ("schedule", "from\tto\tGPU-hours\n1\t2\t100\n"),
        )
    ],
    Entry("proposals:paste_undo", post=C.EDIT, kwargs={"kind": "jobs"}),
    Entry("proposals:logs", get=C.EDIT, post=C.EDIT, data={"logs": "1"}),
    Entry("proposals:logs_undo", post=C.EDIT),
    Entry(
        "proposals:logs_status",
        get=C.EDIT,
        kwargs=lambda ids: {"reading_id": ids.reading},
    ),
    Entry(
        "proposals:logs_retry",
        post=C.EDIT,
        kwargs=lambda ids: {"reading_id": ids.reading},
    ),
    Entry("proposals:compare_systems", get=C.READ),
    Entry("proposals:kit", get=C.EXPORT),
    Entry("proposals:kit_zip", get=C.EXPORT),
    Entry(
        "proposals:use_plan_total", post=C.EDIT, data={"base": "", "step": "selection"}
    ),
    Entry(
        "proposals:retarget_copy", post=C.DUPLICATE, data={"system": "marenostrum5-acc"}
    ),
    Entry(
        "proposals:duplicate", get=C.DUPLICATE, post=C.DUPLICATE, data={"title": "Copy"}
    ),
    *[
        Entry(name, get=STAFF, post=STAFF, data={"section": "codes", "body": "Hi"})
        for name in sorted(STAFF_URLS)
    ],
    # The team: a teammate (not the visitor) and an open invitation to act on.
    Entry("proposals:team", get=C.READ),
    Entry(
        "proposals:team_invite",
        post=C.MANAGE,
        data={"email": "someone.new@example.eu", "role": "viewer"},
    ),
    Entry(
        "proposals:team_revoke",
        post=C.MANAGE,
        kwargs=lambda ids: {"invitation_id": ids.invitation},
    ),
    Entry(
        "proposals:team_role",
        post=C.MANAGE,
        kwargs=lambda ids: {"member_id": ids.teammate},
        data={"role": "viewer"},
    ),
    Entry("proposals:team_notifications", post=C.READ, data={}),
    Entry(
        "proposals:team_remove",
        post=C.MANAGE,
        kwargs=lambda ids: {"member_id": ids.teammate},
    ),
    Entry("proposals:archive", post=C.ARCHIVE, data={"archived": "1"}),
    Entry("proposals:delete", get=C.DELETE, post=C.DELETE),
]

# Requests that change who is on the team (the owner hands the proposal over, a
# member leaves): walked on a proposal of their own, after which the visitor's
# role is not what it was.
LAST = [
    Entry(
        "proposals:team_transfer",
        get=C.MANAGE,
        post=C.MANAGE,
        kwargs=lambda ids: {"member_id": ids.teammate},
    ),
    # Every member may leave; the owner is told to hand the proposal over first
    # (or, once they did just that, leaves as an editor).
    Entry("proposals:team_leave", post=C.READ),
]

ROLES = {"owner": "owner", "editor": "editor", "viewer": "viewer"}
OK, FORBIDDEN, HIDDEN, LOGIN, METHOD = "ok", "403", "404", "login", "405"


def expected(kind: str, need) -> str:
    """What a visitor of ``kind`` gets from a request that needs ``need``."""
    if kind == "anonymous":
        return LOGIN
    if need is None:
        return METHOD
    role = ROLES.get(kind)
    if need == STAFF or role is None:
        return HIDDEN
    return OK if allows(role, need) else FORBIDDEN


def _names_with_pk(patterns, prefix="") -> set[str]:
    """The names of every URL pattern (namespaced) that takes ``pk``, outside the
    admin."""
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name == "admin":
                continue
            space = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            names |= _names_with_pk(pattern.url_patterns, space)
        elif (
            isinstance(pattern, URLPattern)
            and pattern.name
            and "pk" in pattern.pattern.regex.groupindex
        ):
            names.add(prefix + pattern.name)
    return names


def test_every_proposal_url_is_in_the_matrix():
    """A URL that takes a proposal and is missing here fails: say what it needs."""
    derived = _names_with_pk(get_resolver(settings.ROOT_URLCONF).url_patterns)
    assert derived >= STAFF_URLS
    assert {entry.name for entry in MATRIX + LAST} == derived


def test_every_visitor_is_tested():
    assert set(VISITORS) == set(ROLES) | {
        "invited",
        "removed",
        "stranger",
        "anonymous",
    }


@dataclass
class Ids:
    pk: int
    code: int
    job: int
    measurement: int
    usage: int
    pdf: int  # failed (a retry)
    pdf_file: int  # rendered
    reading: int
    chart: str
    teammate: int  # a membership that is not the visitor's
    invitation: int  # an open invitation, not the visitor's


@pytest.fixture
def proposal_with_everything(user, client):
    """A proposal with a row in every table, and its chart's key."""
    proposal = Proposal.objects.get(pk=_proposal(user).pk)
    client.force_login(user)
    html = client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    chart = re.search(r"/chart/([0-9a-f]+)\.svg", html.text).group(1)
    client.logout()
    return proposal, chart


def _proposal(user):
    proposal = ProposalFactory(owner=user, title="The team's proposal")
    code = CodeEntryFactory(proposal=proposal, position=0)
    CodeEntryFactory(proposal=proposal, position=1, name="Evaluation")
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=4, position=0)
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=8, position=1)
    JobTypeFactory(proposal=proposal, position=0)
    JobTypeFactory(proposal=proposal, position=1, title="Second")
    UsageMonthFactory(proposal=proposal)
    return proposal


def _ids(proposal, person, chart) -> Ids:
    pdf = PdfExport.objects.create(
        proposal=proposal,
        content_key="k" * 64,
        status=PdfExport.Status.FAILED,
        error="The worker stopped.",
    )
    rendered = PdfExport.objects.create(
        proposal=proposal,
        content_key="r" * 64,
        status=PdfExport.Status.DONE,
        pdf=b"%PDF-1.4 rendered",
    )
    owner_of_reading = person or proposal.owner
    reading = LogReading.objects.create(
        proposal=proposal, user=owner_of_reading, status=LogReading.Status.FAILED
    )
    first = {kind: getattr(proposal, kind).order_by("pk")[0].pk for kind in TABLES}
    return Ids(
        pk=proposal.pk,
        code=first["codes"],
        job=first["jobs"],
        measurement=first["measurements"],
        usage=first["schedule"],
        pdf=pdf.pk,
        pdf_file=rendered.pk,
        reading=reading.pk,
        chart=chart,
        teammate=Membership.objects.get(
            proposal=proposal, user=member(proposal, "editor")
        ).pk,
        invitation=Invitation.objects.create(
            proposal=proposal,
            email="open.invitation@example.eu",
            role="viewer",
            token_hash="0" * 64,
            invited_by=proposal.owner,
            created_at=timezone.now(),
            expires_at=timezone.now() + timedelta(days=1),
        ).pk,
    )


# The catalogue: reference data, large, written by data migrations and the admin.
CATALOGUE = {"Cluster", "GpuModel", "CallFamily", "CallMode", "CountryEligibility"}


def snapshot() -> dict:
    """Every row of every table of the app but the catalogue's (what a refusal
    must leave alone); in plain SQL, as it is read a hundred times a test."""
    tables = [
        model._meta.db_table
        for model in apps.get_app_config("proposals").get_models()
        if model.__name__ not in CATALOGUE
    ]
    with connection.cursor() as cursor:
        found = {}
        for table in tables:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            found[table] = sorted(cursor.fetchall(), key=repr)
    return found


def _requests(ids, entries):
    for entry in entries:
        kwargs = entry.kwargs(ids) if callable(entry.kwargs) else entry.kwargs
        url = reverse(entry.name, kwargs={"pk": ids.pk, **kwargs})
        yield entry, "get", entry.get, url
        yield entry, "post", entry.post, url


def _outcome(response) -> str:
    status = response.status_code
    if status in (301, 302, 303) and response.url.startswith(reverse("login")):
        return LOGIN
    if status in (403, 404, 405):
        return str(status)
    assert status < 500, status
    return OK


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize("kind", VISITORS)
def test_the_matrix(client, proposal_with_everything, kind, htmx):
    _walk(client, proposal_with_everything, kind, htmx, MATRIX)


@pytest.mark.parametrize("kind", VISITORS)
def test_the_team_changing_requests(client, proposal_with_everything, kind):
    _walk(client, proposal_with_everything, kind, False, LAST)


def _walk(client, proposal_with_everything, kind, htmx, entries):
    proposal, chart = proposal_with_everything
    person = visitor(proposal, kind)
    if person is not None:
        client.force_login(person)
    ids = _ids(proposal, person, chart)
    headers = {"HX-Request": "true"} if htmx else {}
    wrong = []
    for entry, method, need, url in _requests(ids, entries):
        want = expected(kind, need)
        refused = want != OK
        guarded = kind == "viewer" and not refused
        before = snapshot() if refused else proposal_data(ids.pk) if guarded else None
        data = entry.data if method == "post" else {}
        response = getattr(client, method)(url, data, headers=headers)
        got = _outcome(response)
        if got != want:
            wrong.append(f"{method.upper()} {url}: {got}, not {want}")
            continue
        if refused and snapshot() != before:
            wrong.append(f"{method.upper()} {url}: refused ({got}) but wrote")
        if guarded and proposal_data(ids.pk) != before:
            wrong.append(f"{method.upper()} {url}: a viewer changed the proposal")
    assert wrong == [], f"{kind}, {len(wrong)} wrong:\n" + "\n".join(wrong)
