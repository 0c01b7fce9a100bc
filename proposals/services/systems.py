"""Retargeting: a copy of a proposal aimed at another catalogue system (the "compare
systems" page's one click), as entered or with the comparison's rescaled figures."""

import math
from decimal import ROUND_HALF_UP, Decimal

from django.db import transaction
from django.utils.translation import gettext as _

from proposals.assess import assess_proposal
from proposals.domain import limits
from proposals.domain.bounds import MAX_GPU_HOURS, MAX_HOURS_PER_JOB
from proposals.domain.compare import SystemOption
from proposals.domain.numbers import grouped
from proposals.domain.schedule import hours_match
from proposals.models import Cluster, JobType, Proposal, UsageMonth

from .proposals import proposal_duplicate

CENT = Decimal("0.01")


class UnknownSystem(Exception):
    """The system asked for is not in the catalogue."""


class CannotRescale(Exception):
    """The comparison has no rescaled figure for the system, or a rescaled figure
    would be outside what a field holds (the message says which)."""


@transaction.atomic
def proposal_retarget_copy(*, proposal: Proposal, owner, system_slug: str) -> Proposal:
    """A new draft copied from ``proposal`` (every value and row, as
    ``proposal_duplicate``) whose target system is ``system_slug``. The figures are
    kept as entered: the comparison's rescaled GPU-hours are an estimate for the
    applicant to check, not a value to write silently."""
    # No slug holds a NUL, and PostgreSQL refuses one in a query's text.
    cluster = (
        None
        if "\x00" in system_slug
        else Cluster.objects.filter(slug=system_slug).first()
    )
    if cluster is None or not cluster.in_production:
        raise UnknownSystem(system_slug)
    suffix = f" (on {cluster.name})"
    title = proposal.title[: limits.LINE_CHARS - len(suffix)] + suffix
    copy = proposal_duplicate(proposal=proposal, owner=owner, title=title)
    copy.system = cluster
    if cluster.gcds_per_gpu < 2:
        copy.gpu_unit = "gpus"
    copy.save(update_fields=["system", "gpu_unit"])
    return copy


def _rescaled_option(proposal: Proposal, system_slug: str) -> SystemOption:
    """The comparison's row for ``system_slug``, which must have a rescaled figure."""
    comparison = assess_proposal(proposal).systems_comparison
    option = next(
        (
            o
            for o in (comparison.options if comparison else ())
            if o.slug == system_slug
        ),
        None,
    )
    if option is None:
        raise UnknownSystem(system_slug)
    if not option.factor or option.gpu_hours is None:
        raise CannotRescale(f"There is no rescaled figure for {option.name}.")
    return option


def _plan_total(jobs, walltimes) -> Decimal:
    """The job plan's GPU-hours with ``walltimes`` for the ``jobs``' hours."""
    return sum(
        (
            Decimal(j.gpus or 0) * (h or Decimal(0)) * Decimal(j.count or 0)
            for j, h in zip(jobs, walltimes, strict=True)
        ),
        Decimal(0),
    )


def _rescale_schedule(copy: Proposal, total: Decimal) -> None:
    """The copy's usage schedule rescaled to ``total``: its periods in proportion,
    rounded to the cent, the last one taking what is left."""
    periods = list(UsageMonth.objects.filter(proposal=copy).order_by("position", "id"))
    planned = sum((p.gpu_hours or Decimal(0) for p in periods), Decimal(0))
    if periods and planned > 0:
        left = total
        for period in periods[:-1]:
            share = ((period.gpu_hours or Decimal(0)) * total / planned).quantize(
                CENT, ROUND_HALF_UP
            )
            period.gpu_hours = share
            left -= share
        periods[-1].gpu_hours = max(left, Decimal(0))
        UsageMonth.objects.bulk_update(periods, ["gpu_hours"])


@transaction.atomic
def proposal_retarget_copy_rescaled(
    *, proposal: Proposal, owner, system_slug: str
) -> tuple[Proposal, SystemOption]:
    """A retargeted copy (``proposal_retarget_copy``) whose total GPU-hours are the
    comparison's figure for ``system_slug`` (rounded up to whole GPU-hours; when the
    job plan added up to the request, the rescaled plan's total, rounded) and whose
    job walltimes and usage schedule are rescaled by the same factor (the
    schedule's periods in proportion, adding up to the new total). Returns the copy
    and the comparison's row, whose basis says whether it is an estimate. Nothing is
    written when there is no rescaled figure or one would not fit its field."""
    option = _rescaled_option(proposal, system_slug)
    assert option.gpu_hours is not None  # _rescaled_option refuses a missing figure
    factor = Decimal(repr(option.factor))
    total = Decimal(math.ceil(option.gpu_hours))
    jobs = list(JobType.objects.filter(proposal=proposal).order_by("position", "id"))
    hours = [
        None if j.hours is None else (j.hours * factor).quantize(CENT, ROUND_HALF_UP)
        for j in jobs
    ]
    # A job plan that added up to the request still does once rescaled: walltimes
    # rounded to the cent can add a few GPU-hours, so the request follows the plan
    # (to the nearest GPU-hour, within SCAL-3's tolerance) rather than leaving the
    # copy with a SCAL-3 error its original did not have.
    entered = proposal.total_gpu_hours
    if (
        jobs
        and entered is not None
        and hours_match(
            float(_plan_total(jobs, [j.hours for j in jobs])), float(entered)
        )
    ):
        total = _plan_total(jobs, hours).quantize(Decimal(1), ROUND_HALF_UP)
    if total > MAX_GPU_HOURS or any(
        h is not None and h > MAX_HOURS_PER_JOB for h in hours
    ):
        raise CannotRescale(
            _(
                "Rescaled by %(factor)s, a figure would be above what the wizard "
                "accepts: copy the figures as entered and adjust them."
            )
            % {"factor": grouped(option.factor, 2, trim=False)}
        )
    copy = proposal_retarget_copy(
        proposal=proposal, owner=owner, system_slug=system_slug
    )
    copy.total_gpu_hours = total
    copy.save(update_fields=["total_gpu_hours"])
    copied_jobs = list(JobType.objects.filter(proposal=copy).order_by("position", "id"))
    for job, new in zip(copied_jobs, hours, strict=True):
        job.hours = new
    JobType.objects.bulk_update(copied_jobs, ["hours"])
    _rescale_schedule(copy, total)
    return copy, option
