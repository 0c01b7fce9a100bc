"""The scaling kit of a saved proposal (issue 37): its plan and its files, read
from the proposal, its target system's catalogue entry and the call terms."""

from __future__ import annotations

import io
import zipfile

from proposals import domain
from proposals.assess import CLUSTER_FIELDS, proposal_to_domain, terms_from_db
from proposals.domain.scaling_kit import DEFAULT_STEPS, Kit, plan_kit
from proposals.domain.scaling_scripts import render_files


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
