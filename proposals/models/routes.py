"""The routes to EuroHPC AI compute, their cut-offs and the AI Factories, as dated,
sourced data (issue 38).

The defaults come from ``fixtures/routes.json`` (loaded by a data migration);
administrators keep them current in the admin; the router
(``proposals.domain.router``) reads them through ``selectors.routes_data``. Each
fact's source and check date is kept in ``sources`` as for the call terms; a fact no
public document states says "Unverified".
"""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ValidationError
from django.db import models

from proposals.domain.terms import REQUEST_UNITS, problems

from .calls import SOURCES_HELP
from .catalogue import Cluster
from .proposal import Proposal


def _zone(value: str) -> None:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValidationError(f"“{value}” is not an IANA time zone.") from error


class AccessRoute(models.Model):
    """One way to EuroHPC AI compute: an AI Factory mode, a EuroHPC access call, an
    Antenna. ``family``/``mode`` name the wizard's call family and mode it stands
    for (blank: the wizard has no form for it; its own kinds, countries, unit and
    bounds apply)."""

    class Experience(models.TextChoices):
        ANY = "", "any"
        SOME = "some", "throughput measured at a few GPU counts"
        PROVEN = "proven", "scaling measured at the target size"

    slug = models.SlugField(max_length=50, unique=True)
    label = models.CharField(max_length=120)
    position = models.PositiveSmallIntegerField(default=0)
    family = models.CharField(max_length=32, blank=True)
    mode = models.CharField(max_length=32, blank=True)
    continuous = models.BooleanField(
        "open all year", default=False, help_text="No cut-offs: continuously open."
    )
    recurring = models.BooleanField(
        "cut-offs recur",
        default=False,
        help_text=(
            "The call stays open with regular cut-offs: once every published one "
            "has passed, the next is awaited and the route still fits."
        ),
    )
    url = models.URLField(max_length=500, blank=True)
    who = models.TextField("who may apply", blank=True)
    evidence = models.TextField("evidence required", blank=True)
    evaluation = models.CharField(max_length=300, blank=True)
    access = models.CharField("typical time to access", max_length=300, blank=True)
    requires_experience = models.CharField(
        max_length=8, choices=Experience.choices, blank=True
    )
    min_model_params = models.FloatField(
        "smallest model (parameters)", null=True, blank=True
    )
    countries = models.JSONField(
        default=list,
        blank=True,
        help_text="Country codes the route serves (empty: the country lists apply).",
    )
    eligible_kinds = models.JSONField(default=list, blank=True)
    eligible_country_statuses = models.JSONField(default=list, blank=True)
    unit = models.CharField(
        max_length=20, choices=list(REQUEST_UNITS.items()), default="gpu_hours"
    )
    min_request = models.FloatField(null=True, blank=True)
    max_request = models.FloatField(null=True, blank=True)
    systems = models.ManyToManyField(Cluster, blank=True, related_name="routes")
    sources = models.JSONField(default=dict, blank=True, help_text=SOURCES_HELP)

    class Meta:
        ordering = ["position", "slug"]

    def __str__(self):
        return self.label

    def clean(self):
        found = problems({"slug": self.slug, "sources": self.sources})
        if found:
            raise ValidationError({"sources": found})


class Cutoff(models.Model):
    """A published cut-off: date, time and zone as published (no time: the date
    only was published, the whole day counts), with its source."""

    route = models.ForeignKey(
        AccessRoute, on_delete=models.CASCADE, related_name="cutoffs"
    )
    date = models.DateField()
    time = models.TimeField(null=True, blank=True)
    zone = models.CharField(
        max_length=64, default="Europe/Brussels", validators=[_zone]
    )
    systems = models.ManyToManyField(
        Cluster,
        blank=True,
        related_name="+",
        help_text="The systems offered at this cut-off, where published.",
    )
    source = models.CharField(max_length=500)
    checked = models.DateField("checked on")

    class Meta:
        ordering = ["date", "time"]
        constraints = [
            models.UniqueConstraint(fields=["route", "date"], name="cutoff_unique_day")
        ]

    def __str__(self):
        return f"{self.route}: {self.date}"


class AiFactory(models.Model):
    """An AI Factory and its system, or an AI Factory Antenna and the factory it
    is linked to. A system in production links to its catalogue entry (a target to
    choose); one not yet in production has no entry, and says when it is expected
    ("Unverified" when no document states it). An Antenna has no system of its own:
    it gives remote access to its linked factory's."""

    class Kind(models.TextChoices):
        FACTORY = "factory", "AI Factory"
        ANTENNA = "antenna", "AI Factory Antenna"

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.FACTORY)
    linked_factory = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="antennas",
        limit_choices_to={"kind": "factory"},
        help_text="An Antenna's AI Factory (blank: no source names it).",
    )
    country = models.CharField(max_length=2)
    site = models.CharField(max_length=200, blank=True)
    system = models.CharField(max_length=120, blank=True)
    cluster = models.ForeignKey(
        Cluster, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    in_production = models.BooleanField(default=False)
    expected = models.CharField("expected in production", max_length=100, blank=True)
    selection_round = models.PositiveSmallIntegerField(null=True, blank=True)
    source = models.CharField(max_length=500)
    checked = models.DateField("checked on")

    class Meta:
        ordering = ["name"]
        verbose_name = "AI Factory"
        verbose_name_plural = "AI Factories"

    def __str__(self):
        return self.name

    def clean(self):
        if self.in_production and self.cluster_id is None:
            raise ValidationError(
                {"cluster": "A system in production needs its catalogue entry."}
            )
        if self.kind == self.Kind.ANTENNA:
            return
        if not self.in_production and not self.expected:
            raise ValidationError(
                {"expected": "When is it expected? (“Unverified” if unknown.)"}
            )


class ProposalRoute(models.Model):
    """The route a proposal was started on from the router."""

    proposal = models.OneToOneField(
        Proposal, on_delete=models.CASCADE, related_name="access_route"
    )
    route = models.ForeignKey(AccessRoute, on_delete=models.CASCADE, related_name="+")

    def __str__(self):
        return f"{self.proposal_id} on {self.route}"


class CutoffReminder(models.Model):
    """A reminder mail sent to a proposal's team ``days_before`` a cut-off (kept
    so that each is sent once)."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="cutoff_reminders"
    )
    cutoff = models.ForeignKey(Cutoff, on_delete=models.CASCADE, related_name="+")
    days_before = models.PositiveSmallIntegerField()
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "cutoff", "days_before"],
                name="cutoff_reminder_once",
            )
        ]

    def __str__(self):
        return f"{self.proposal_id}: {self.days_before} days before {self.cutoff}"
