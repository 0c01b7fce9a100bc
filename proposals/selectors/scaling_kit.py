"""The scaling kit of a saved proposal (issue 37): its plan and its files, read
from the proposal, its target system's catalogue entry and the call terms."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from django.utils.translation import gettext as _

from proposals import domain, localization
from proposals.assess import CLUSTER_FIELDS, proposal_to_domain, terms_from_db
from proposals.domain.scaling_kit import DEFAULT_STEPS, Kit, kit_gpus, plan_kit
from proposals.domain.scaling_scripts import render_files
from proposals.models import ScalingKit, ScalingMeasurement

from .compiled import CompiledQuery


def scaling_kit_of(
    *,
    proposal,
    launcher: str | None = None,
    steps: int = DEFAULT_STEPS,
    terms_query: bool = True,
) -> Kit:
    """The kit of ``proposal`` (children prefetched) on its target system; raises
    ``KitError`` for an unknown launcher or steps out of range. Without
    ``terms_query`` the shipped call terms give the Playground limit (the GPU
    counts do not depend on them: no query)."""
    system = proposal.system
    cluster = (
        domain.Cluster.from_dict({n: getattr(system, n) for n in CLUSTER_FIELDS})
        if system is not None
        else None
    )
    return plan_kit(
        proposal_to_domain(proposal),
        cluster,
        terms=terms_from_db() if terms_query else None,
        launcher=launcher,
        steps=steps,
    )


def scaling_kit_zip(*, kit: Kit, folder: str) -> bytes:
    """The kit's files in a zip, under ``folder/`` (the scripts executable)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in render_files(kit).items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if name.endswith(".sh") else 0o644
            info.external_attr = (0o100000 | mode) << 16
            archive.writestr(info, text)
    return buffer.getvalue()


@dataclass(frozen=True)
class KitHistory:
    """The last kit handed out for a proposal, and which of its counts have come
    back as measurements read from the kit's logs."""

    created_at: object
    system: str
    counts: tuple[int, ...]
    returned: tuple[int, ...]

    @property
    def missing(self) -> tuple[int, ...]:
        return tuple(c for c in self.counts if c not in self.returned)

    @property
    def lines(self) -> tuple[str, str]:
        """The two sentences the kit's summary shows (the staff page, the kit's
        preview and the Markdown and PDF exports), in the active language: when
        the scripts were generated for which counts, and which logs came back."""
        generated = _(
            "Scripts generated %(when)s for %(counts)s GPUs on %(system)s."
        ) % {
            "when": localization.when(self.created_at),
            "counts": _counts(self.counts),
            "system": self.system,
        }
        if not self.returned:
            return generated, _("No log has come back yet.")
        back = _("Logs back for %(counts)s GPUs.") % {"counts": _counts(self.returned)}
        if self.missing:
            back += " " + _("Still to come: %(counts)s GPUs.") % {
                "counts": _counts(self.missing)
            }
        return generated, back


def _counts(counts) -> str:
    return ", ".join(str(c) for c in counts)


def scaling_kit_lines(*, proposal) -> tuple[str, ...]:
    """The sentences on the last kit of ``proposal`` (none without a kit)."""
    last = scaling_kit_last(proposal=proposal)
    return last.lines if last is not None else ()


def _kits(proposal_id: int):
    return ScalingKit.objects.filter(proposal_id=proposal_id)


# Compiled once (on the staff review page, compiling it cost more than reading it).
_LAST_KIT = CompiledQuery(_kits, arity=1)


def scaling_kit_last(*, proposal) -> KitHistory | None:
    """The last kit of ``proposal`` (two queries), or ``None``."""
    record = _LAST_KIT.first(proposal.pk)
    if record is None:
        return None
    sources = ScalingMeasurement.objects.filter(
        proposal=proposal, source__contains="scaling_"
    ).values_list("source", flat=True)
    back = {kit_gpus(source.split(",", 1)[0]) for source in sources}
    counts = tuple(record.counts)
    return KitHistory(
        created_at=record.created_at,
        system=record.system,
        counts=counts,
        returned=tuple(c for c in counts if c in back),
    )
