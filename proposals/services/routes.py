"""Starting a proposal on a route chosen in the call router, and the reminders of
a route's cut-off to the teams of drafts not yet sent for review."""

from decimal import Decimal
from zoneinfo import ZoneInfo

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from proposals import notifications, routing, selectors
from proposals.domain.router import REMINDER_DAYS
from proposals.models import (
    AccessRoute,
    Cluster,
    Cutoff,
    CutoffReminder,
    Proposal,
    ProposalRoute,
)

from .mail import mail_queue
from .proposals import proposal_create


@transaction.atomic
def proposal_create_on_route(
    *,
    owner,
    route: AccessRoute,
    system: Cluster | None,
    title: str,
    organisation_kind: str = "",
    country: str = "",
    gpu_hours: float | None = None,
    experience: str = "",
) -> Proposal:
    """Create a draft in the route's call family on ``system`` (one of the route's
    systems), with the router's answers that the wizard asks again (organisation
    kind and country, GPU-hours, experience), and remember the route."""
    if not route.family:
        raise ValidationError("The wizard has no form for this route.")
    if system is not None and not route.systems.filter(pk=system.pk).exists():
        raise ValidationError("The route does not offer this system.")
    if system is not None and system.not_a_target():
        raise ValidationError(system.not_a_target())
    proposal = proposal_create(
        owner=owner, title=title, call_family=route.family, system=system
    )
    changes: dict[str, object] = {
        "organisation_kind": organisation_kind,
        "organisation_country": country,
        "hpc_experience": experience,
    }
    if gpu_hours:
        changes["total_gpu_hours"] = Decimal(str(round(gpu_hours)))
    changes = {k: v for k, v in changes.items() if v}
    if changes:
        Proposal.objects.filter(pk=proposal.pk).update(**changes)
        proposal.refresh_from_db()
    ProposalRoute.objects.create(proposal=proposal, route=route)
    return proposal


def _drafts_not_sent():
    """Drafts never sent for review, not archived, not deleted."""
    return Proposal.objects.filter(
        status=Proposal.Status.DRAFT,
        review_state__isnull=True,
        archived_at__isnull=True,
        deleted_at__isnull=True,
        owner__isnull=False,
    )


def cutoff_reminders_send(*, now=None) -> int:
    """Mail the team of each draft not yet sent for review whose route's next
    cut-off is at most 14, then at most 3 days away (``router.REMINDER_DAYS``,
    counted in the cut-off's zone), once each; returns the reminders sent. A missed
    day does not lose a reminder: the nearest one not yet sent goes out."""
    now = now or timezone.now()
    data = selectors.routes_data()
    cutoffs = {
        (c.route.slug, c.date): c for c in Cutoff.objects.select_related("route")
    }
    sent = 0
    for proposal in _drafts_not_sent().select_related("owner"):
        route = routing.route_of(proposal, data)
        upcoming = data.next_cutoff(route.slug, now) if route else None
        if upcoming is None:
            continue
        days = upcoming.days_from(now, ZoneInfo(upcoming.zone))
        due = [d for d in REMINDER_DAYS if days <= d]
        if not due:
            continue
        row = cutoffs[(upcoming.route, upcoming.date)]
        nearest = min(due)
        with transaction.atomic():
            done = set(
                CutoffReminder.objects.filter(
                    proposal=proposal, cutoff=row
                ).values_list("days_before", flat=True)
            )
            if nearest in done:
                continue
            CutoffReminder.objects.bulk_create(
                CutoffReminder(proposal=proposal, cutoff=row, days_before=d)
                for d in due
                if d not in done
            )
            mail_queue(
                mails=notifications.cutoff_reminder_to_team(
                    proposal=proposal, route=route, cutoff=upcoming, days=days
                ),
                proposal=proposal,
            )
            sent += 1
    return sent


@task()
def send_cutoff_reminders() -> int:
    """The worker's task (``manage.py remind_cutoffs`` queues it daily)."""
    return cutoff_reminders_send()
