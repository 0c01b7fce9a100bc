"""The help desk's own writes: bulk actions on the queue, saved views of the
queue, and the daily digest."""

import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tasks import task

from proposals import notifications, selectors
from proposals.domain.response_times import working_days_between
from proposals.models import (
    Proposal,
    ReviewState,
    ReviewVisit,
    SavedQueueView,
    StaffDigest,
)
from proposals.models.preferences import DEFAULT_TIME_ZONE, StaffMail

from .mail import mail_queue
from .review import ReviewError, review_assign, review_set_status


class BulkRefused(ReviewError):
    """A bulk action that could not be done on one of its rows: nothing of it
    was done (the message names the proposal and says why)."""


@transaction.atomic
def review_bulk(
    *,
    user,
    seen: dict[int, tuple[int | None, str]],
    action: str,
    to=None,
    to_status: str = "",
    note: str = "",
) -> int:
    """Do ``action`` (``selectors.BULK_ACTIONS``) on every proposal of ``seen``
    (``{pk: (handler id, status)}`` as the staff member confirmed them), all or
    nothing: a row whose handler or status changed since, or that is refused
    now (a conflict of interest, a move the workflow does not allow), undoes the
    whole action with :class:`BulkRefused`. Each row goes through the single
    services (``review_assign``, ``review_set_status``), mails included; returns
    the number of rows done."""
    if action not in selectors.BULK_ACTIONS:
        raise ReviewError(_("Choose what to do with the proposals."))
    if not seen or len(seen) > selectors.BULK_LIMIT:
        raise ReviewError(
            _("Pick between 1 and %(n)s proposals.") % {"n": selectors.BULK_LIMIT}
        )
    # Lock the picked rows in one order, so two bulk actions cannot cross.
    locked = list(
        ReviewState.objects.select_for_update(of=("self",))
        .filter(proposal_id__in=list(seen))
        .order_by("proposal_id")
        .values_list("proposal_id", flat=True)
    )
    if len(locked) != len(seen):
        raise BulkRefused(_("One of the proposals is no longer in the queue."))
    plan = selectors.queue_bulk_plan(
        user=user, pks=list(seen), action=action, to=to, to_status=to_status, note=note
    )
    proposals = Proposal.objects.in_bulk([row.state.proposal_id for row in plan])
    for row in plan:
        title = row.state.proposal.title
        if (row.handler_id, row.status) != tuple(seen[row.state.proposal_id]):
            raise BulkRefused(
                _("“%(title)s” changed since you looked: nothing was done.")
                % {"title": title}
            )
        if row.refused:
            raise BulkRefused(f"“{title}”: {row.refused}")
        proposal = proposals[row.state.proposal_id]
        try:
            if action == "status":
                review_set_status(
                    proposal=proposal,
                    user=user,
                    to_status=to_status,
                    note=note,
                    expected_status=row.status,
                )
            else:
                review_assign(
                    proposal=proposal,
                    user=user,
                    to={"take": user, "hand_over": to}.get(action),
                    expected_handler=row.handler_id,
                )
        except ReviewError as exc:
            raise BulkRefused(f"“{title}”: {exc}") from exc
    return len(plan)


# Saved views of the queue ---------------------------------------------------------


@transaction.atomic
def saved_view_save(
    *, user, name: str, query: str, shared: bool = False
) -> SavedQueueView:
    """Save the queue's filters (``query``, the filter form's query string) under
    ``name`` for staff member ``user``, ``shared`` with the desk or not; a view
    of the same name is replaced. Refused: anybody outside the staff, a blank
    name, more than ``SavedQueueView.MAX_PER_PERSON`` views."""
    if not selectors.user_is_support_staff(user=user):
        raise ReviewError(_("Only support staff save views of the queue."))
    name = " ".join(name.split())[:80]
    if not name:
        raise ReviewError(_("Give the view a name."))
    views = SavedQueueView.objects.select_for_update().filter(user=user)
    if (
        not views.filter(name=name).exists()
        and views.count() >= SavedQueueView.MAX_PER_PERSON
    ):
        raise ReviewError(
            _("You have %(n)s saved views already: delete one first.")
            % {"n": SavedQueueView.MAX_PER_PERSON}
        )
    view, _created = SavedQueueView.objects.update_or_create(
        user=user, name=name, defaults={"query": query[:1000], "shared": shared}
    )
    return view


def saved_view_share(*, user, pk: int, shared: bool) -> SavedQueueView | None:
    """Share ``user``'s saved view ``pk`` with the desk, or stop sharing it (a
    colleague's view is left alone); returns it, or ``None`` when there was none."""
    view = SavedQueueView.objects.filter(user=user, pk=pk).first()
    if view is not None and view.shared != shared:
        view.shared = shared
        view.save(update_fields=["shared"])
    return view


def saved_view_delete(*, user, pk: int) -> SavedQueueView | None:
    """Delete ``user``'s saved view ``pk`` (another person's is left alone);
    returns it, or ``None`` when there was none."""
    view = SavedQueueView.objects.filter(user=user, pk=pk).first()
    if view is not None:
        view.delete()
    return view


# The daily digest -------------------------------------------------------------------

# The longest stretch a digest looks back (after a long absence).
DIGEST_LOOKBACK = datetime.timedelta(days=7)


def _zone(name: str):
    try:
        return ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        return ZoneInfo(DEFAULT_TIME_ZONE)


def _since_last_working_day(day, clock) -> datetime.timedelta:
    """From ``day`` back to the working day before it on ``clock`` (Monday: to
    Friday), at most ``DIGEST_LOOKBACK``."""
    back = datetime.timedelta(days=1)
    while back < DIGEST_LOOKBACK and not working_days_between(
        day - back - datetime.timedelta(days=1), day - back, **clock()
    ):
        back += datetime.timedelta(days=1)
    return back


def staff_digests_send(*, now=None) -> int:
    """Mail each staff member who chose the daily digest (``StaffMail.DIGEST``)
    their digest once per working day (their calendar: weekends, public holidays,
    the desk's closures), at or after their digest hour in their zone: what
    arrived or changed since their last digest (a day before the first; at most
    ``DIGEST_LOOKBACK``). An empty digest is recorded, not sent. Returns the
    digests mailed."""
    now = now or timezone.now()
    people = (
        get_user_model()
        .objects.filter(
            groups__name=selectors.STAFF_GROUP,
            is_active=True,
            preferences__staff_mail=StaffMail.DIGEST,
        )
        .select_related("preferences")
    )
    sent = 0
    for person in people:
        prefs = person.preferences
        local = now.astimezone(_zone(prefs.time_zone))
        day = local.date()
        clock = selectors.staff_clock(preferences=prefs)
        if local.hour < prefs.digest_hour or not working_days_between(
            day - datetime.timedelta(days=1), day, **clock()
        ):
            continue
        with transaction.atomic():
            digests = StaffDigest.objects.select_for_update().filter(user=person)
            if digests.filter(day=day).exists():
                continue
            last = digests.order_by("-sent_at").first()
            first = now - _since_last_working_day(day, clock)
            since = max(last.sent_at if last else first, now - DIGEST_LOOKBACK)
            arrived, changed = selectors.digest_of(user=person, since=since, until=now)
            StaffDigest.objects.create(
                user=person,
                day=day,
                sent_at=now,
                arrived=len(arrived),
                changed=len(changed),
            )
            if arrived or changed:
                mail_queue(
                    mails=notifications.staff_digest(
                        person=person, arrived=arrived, changed=changed, since=since
                    )
                )
                sent += 1
    return sent


@task()
def send_staff_digests() -> int:
    """The worker's task (``manage.py send_digests`` queues it every hour)."""
    return staff_digests_send()


def review_visit_record(*, proposal: Proposal, user) -> bool:
    """Remember that ``user`` (staff) opened the proposal's review now: the queue
    marks activity since its handler's last visit (``ReviewState.last_activity_at``
    after it). Written only when that changes what the queue shows: a first visit,
    or the first since activity newer than the last one recorded; any other visit
    would only move a time nobody reads, and cost every page view a write. Reads the
    last visit from ``proposal.visit_opened_at`` when the proposal was fetched with
    it (``selectors.review_get_for_staff``). Returns whether it wrote."""
    if hasattr(proposal, "visit_opened_at"):
        opened = proposal.visit_opened_at
    else:
        opened = (
            ReviewVisit.objects.filter(proposal=proposal, user=user)
            .values_list("opened_at", flat=True)
            .first()
        )
    state = getattr(proposal, "review_state", None)
    activity = state.last_activity_at if state else None
    if opened is not None and (activity is None or activity <= opened):
        return False
    ReviewVisit.objects.update_or_create(
        proposal=proposal, user=user, defaults={"opened_at": timezone.now()}
    )
    return True
