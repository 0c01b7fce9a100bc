"""The support staff and their review queue."""

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Concat
from django.utils import timezone

from proposals import reference_data
from proposals.domain import response_times, workflow
from proposals.models import (
    Membership,
    Proposal,
    ReviewState,
    ReviewVisit,
)

from .compiled import CompiledQuery
from .proposals import member_role

STAFF_GROUP = "Support staff"
QUEUE_ORDERS = {
    "waiting": ("submitted_at", "pk"),
    "recent": ("-submitted_at", "-pk"),
    # Least time left against the call mode's target first (late ones first);
    # modes without a target, and rows not waiting for the staff, last.
    "time_left": (F("time_left").asc(nulls_last=True), "submitted_at", "pk"),
}
# Time left is counted exactly up to this many working days past the largest
# target; longer waits rank by when they were sent.
TIME_LEFT_HORIZON = 60
QUEUE_PAGE_SIZE = 25


def staff_members():
    """The active support staff, by user name (to hand a proposal over)."""
    return (
        get_user_model()
        .objects.filter(groups__name=STAFF_GROUP, is_active=True)
        .order_by("username")
    )


def _staff_group_of(user_id: int):
    return Group.objects.filter(user=user_id, name=STAFF_GROUP).only("pk")


# Compiled once (asked on every staff page).
_STAFF_GROUP_OF = CompiledQuery(_staff_group_of, arity=1)


def user_is_support_staff(*, user) -> bool:
    """Whether ``user`` belongs to the support staff group; one query per user
    object (the answer is kept on it, so a request asks once)."""
    if user is None or not user.is_authenticated:
        return False
    cached = getattr(user, "_is_support_staff", None)
    if cached is None:
        cached = _STAFF_GROUP_OF.first(user.pk) is not None
        user._is_support_staff = cached
    return cached


# Which part of the queue to show: who owes the next step, or how it ended.
QUEUE_SHOW = {
    "us": workflow.WAITING_FOR_STAFF,
    "applicant": workflow.WAITING_FOR_APPLICANT,
    "open": workflow.UNDER_REVIEW,
    "ended": workflow.TERMINAL,
    "all": (),
}


@dataclass(frozen=True)
class Clock:
    """The calendar a staff member's working days follow: the public holidays of
    ``country`` (``ES-CT``; their own, else the desk's) and the desk's closure
    days (``closed``)."""

    country: str
    closed: tuple = ()

    def __call__(self) -> dict:
        """The keyword arguments of the ``response_times`` counts."""
        return {"country": self.country, "closed": self.closed}


def staff_clock(*, preferences=None) -> Clock:
    """The clock of the staff member whose ``Preferences`` these are (``None``:
    the desk's, ``DJANGO_HOLIDAY_COUNTRY``), with the desk's closure days. No
    query (the closure days are kept with the reference data)."""
    own = getattr(preferences, "holiday_calendar", "") or ""
    return Clock(
        own or settings.HOLIDAY_COUNTRY or "", reference_data.cached_closures()
    )


def queue_late_since(
    *, today, clock: Clock | None = None
) -> dict[tuple[str, str], datetime.date]:
    """``{(family, tier): day}``: a proposal of that call mode waiting for the
    staff since that day or earlier is late today (working days on ``clock``)."""
    clock = clock or staff_clock()
    return {
        mode: response_times.late_if_sent_by(today=today, typical=days, **clock())
        for mode, days in response_times.typical_days_by_mode(
            reference_data.cached_terms()
        ).items()
    }


def _local_midnight_after(day: datetime.date) -> datetime.datetime:
    next_day = datetime.datetime.combine(day + response_times.DAY, datetime.time())
    return timezone.make_aware(next_day, timezone.get_current_timezone())


def _mode_q(family: str, tier: str) -> Q:
    mode = Q(proposal__call_family=family)
    if tier:
        mode &= Q(latest_revision__tier=tier)
    return mode


# Waiting for the staff against the call mode's target: not once the applicant
# archived it (the queue marks it; it is never "late").
ON_THE_CLOCK = Q(
    proposal__status__in=workflow.WAITING_FOR_STAFF, proposal__archived_at__isnull=True
)


def on_the_clock(proposal) -> bool:
    """:data:`ON_THE_CLOCK` for one proposal already read."""
    return proposal.status in workflow.WAITING_FOR_STAFF and not proposal.archived_at


def _late(today, clock: Clock | None = None) -> Q:
    """Waiting for the staff for longer than the call mode's target."""
    late = Q(pk__in=[])
    for (family, tier), day in queue_late_since(today=today, clock=clock).items():
        late |= _mode_q(family, tier) & Q(submitted_at__lt=_local_midnight_after(day))
    return late & ON_THE_CLOCK


def _time_left(today, clock: Clock):
    """Working days left against the call mode's target (negative once late), for
    a proposal waiting for the staff of a mode with a target; else NULL. In SQL:
    the sending days that mark each whole working day waited are computed here."""
    targets = response_times.typical_days_by_mode(reference_data.cached_terms())
    if not targets:
        return Value(None, output_field=IntegerField())
    days_back = response_times.sending_days_back(
        today=today, waits=max(targets.values()) + TIME_LEFT_HORIZON, **clock()
    )
    waited = Case(
        *(
            When(submitted_at__lt=_local_midnight_after(day), then=Value(w))
            for w, day in sorted(days_back.items(), reverse=True)
        ),
        default=Value(0),
        output_field=IntegerField(),
    )
    return Case(
        *(
            When(
                _mode_q(family, tier) & ON_THE_CLOCK,
                then=Value(days) - waited,
            )
            for (family, tier), days in targets.items()
        ),
        default=Value(None),
        output_field=IntegerField(),
    )


def _people_named(search: str):
    """Users ``search`` names: part of their username, e-mail address, or of
    "first last"."""
    return (
        get_user_model()
        .objects.annotate(person_name=Concat("first_name", Value(" "), "last_name"))
        .filter(
            Q(username__icontains=search)
            | Q(email__icontains=search)
            | Q(person_name__icontains=search)
        )
        .values("pk")
    )


def queue_search(queryset, search: str):
    """Review states whose proposal's title or organisation contains ``search``,
    or whose applicant or a team member is a person it names (see
    :func:`_people_named`). Filters in the queue's one query: no query of its
    own.

    Each test is a subquery on one table, so on PostgreSQL the text test is
    served by the trigram indexes of migration 0018 (an OR across joined tables
    could only be checked row by row)."""
    search = search.strip()
    if not search:
        return queryset
    by_text = Proposal.objects.filter(
        Q(title__icontains=search) | Q(organisation_name__icontains=search)
    ).values("pk")
    people = _people_named(search)
    members = Membership.objects.filter(proposal=OuterRef("proposal"), user__in=people)
    return queryset.filter(
        Q(proposal__in=by_text) | Q(proposal__owner__in=people) | Exists(members)
    )


def queue_columns(queryset, *, user=None):
    """The review states of ``queryset`` with what a queue row shows joined in:
    the proposal and its applicant, the latest revision's summary and system, the
    handler and when they last opened it (``handler_opened_at``), and with
    ``user`` their role on the team (``reader_role``)."""
    queryset = (
        queryset.select_related(
            "proposal",
            "proposal__owner",
            "latest_revision",
            "latest_revision__system",
            "handled_by",
        )
        .defer("latest_revision__snapshot", "latest_revision__findings")
        .annotate(
            handler_opened_at=Subquery(
                ReviewVisit.objects.filter(
                    proposal=OuterRef("proposal"), user=OuterRef("handled_by")
                ).values("opened_at")[:1]
            )
        )
    )
    if user is not None:
        queryset = queryset.annotate(reader_role=member_role(user.pk, path="proposal"))
    return queryset


def queue_page(queryset, number, *, user=None) -> Page:
    """Page ``number`` of ``queryset`` (``review_queue``), its rows a list in the
    queue's order: the page's keys are picked first in the queue's order, a sort
    of the keys alone, and then only those rows are read with their columns
    (``queue_columns``). Sorting every filtered row with all its columns to keep
    25 cost most of the page at 10,000 proposals (tests/bench/test_bench_queue.py)."""
    page = Paginator(queryset.values_list("pk", flat=True), QUEUE_PAGE_SIZE).get_page(
        number
    )
    keys = list(page.object_list)
    rows = queue_columns(ReviewState.objects.filter(pk__in=keys), user=user)
    by_key = {state.pk: state for state in rows}
    page.object_list = [by_key[key] for key in keys if key in by_key]
    return page


def review_queue(
    *,
    statuses=(),
    show: str = "",
    late: bool = False,
    tier: str = "",
    system: str = "",
    has_errors: bool | None = None,
    search: str = "",
    order: str = "waiting",
    handler: str = "",
    user=None,
    today=None,
    clock: Clock | None = None,
):
    """Proposals sent for review at least once, with their latest revision's
    summary (tier, system, GPU-hours, finding counts), their handler and when the
    handler last opened the review (``handler_opened_at``) joined in: one query
    for a page whatever its length, plus the paginator's count.

    ``show`` picks who owes the next step or how it ended (``QUEUE_SHOW``; blank:
    every status), ``statuses`` narrows to several statuses at once, ``late`` to
    proposals waiting for the staff beyond their call's typical answer time.
    ``handler`` is ``"mine"`` (handled by ``user``), ``"nobody"`` or blank (any).
    ``clock``: the reader's calendar (``staff_clock``; the desk's by default) for
    "late" and the time left (``order="time_left"``).
    With ``user``, each row carries ``reader_role``: their role on the proposal's
    team (``None`` off it), for ``queue_mark_conflicts``."""
    queryset = queue_columns(ReviewState.objects.all(), user=user)
    if QUEUE_SHOW.get(show):
        queryset = queryset.filter(proposal__status__in=QUEUE_SHOW[show])
    if statuses:
        queryset = queryset.filter(proposal__status__in=list(statuses))
    today = today or timezone.localdate()
    clock = clock or staff_clock()
    if late:
        queryset = queryset.filter(_late(today, clock))
    if handler == "mine" and user is not None:
        queryset = queryset.filter(handled_by=user)
    elif handler == "nobody":
        queryset = queryset.filter(handled_by__isnull=True)
    if tier:
        queryset = queryset.filter(latest_revision__tier=tier)
    if system:
        queryset = queryset.filter(latest_revision__system__slug=system)
    if has_errors is True:
        queryset = queryset.filter(latest_revision__error_count__gt=0)
    elif has_errors is False:
        queryset = queryset.filter(latest_revision__error_count=0)
    queryset = queue_search(queryset, search)
    if order == "time_left":
        queryset = queryset.annotate(time_left=_time_left(today, clock))
    return queryset.order_by(*QUEUE_ORDERS.get(order, QUEUE_ORDERS["waiting"]))
