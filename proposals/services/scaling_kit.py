"""Writes of the scaling kit (issue 37): a download is recorded, so the exports
and the staff page can say when scripts were generated and for which counts."""

from django.db import transaction

from proposals.domain.scaling_kit import Kit
from proposals.models import Proposal, ScalingKit


@transaction.atomic
def scaling_kit_record(*, proposal: Proposal, user, kit: Kit) -> ScalingKit | None:
    """Record that ``kit`` was handed out for ``proposal`` (nothing for a kit
    without runs); keeps the newest ``ScalingKit.KEEP``."""
    if not kit.jobs:
        return None
    assert kit.system is not None  # a kit with runs has a system
    record = ScalingKit.objects.create(
        proposal=proposal,
        created_by=user,
        system=kit.system.slug,
        counts=list(kit.counts),
        launcher=kit.launcher,
        steps=kit.steps,
    )
    old = list(
        ScalingKit.objects.filter(proposal=proposal).values_list("pk", flat=True)[
            ScalingKit.KEEP :
        ]
    )
    if old:
        ScalingKit.objects.filter(pk__in=old).delete()
    return record
