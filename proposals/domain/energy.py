"""Energy and carbon estimate for the requested GPU-hours (beyond the guides).

energy = GPU-hours x GPU board power x utilisation; carbon = energy x carbon intensity
of the site (its own figure when the catalogue has one, else the host country's grid).
"""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import gettext, gettext_noop
from .numbers import grouped, percent
from .types import Cluster

# Measured on 8-GPU H100 nodes during AI training: about 76% of rated power.
DEFAULT_UTILISATION = 0.76
UTILISATION_SOURCE = (
    "“Empirically-calibrated H100 node power models for accurate AI training energy "
    "estimation” (DOE OSTI, 2025)"
)

#: The sites' own carbon notes as the system catalogue (fixtures/catalogue.json)
#: writes them, marked for the catalogues: a note is shown in the reader's language
#: (one the catalogues do not hold, edited since, as written). A test keeps every
#: note of the catalogue here.
SITE_NOTES = (
    # xgettext:no-python-format
    gettext_noop("The LUMI data centre states that it runs on 100% hydropower."),
)


@dataclass(frozen=True)
class EnergyEstimate:
    """The estimate and the assumptions it rests on, as sentences."""

    gpu_hours: float
    gpu_power_w: float
    utilisation: float
    energy_mwh: float
    carbon_intensity_g_per_kwh: float
    carbon_t_co2e: float
    assumptions: tuple[str, ...]


def estimate(
    gpu_hours: float | None,
    cluster: Cluster | None,
    utilisation: float = DEFAULT_UTILISATION,
) -> EnergyEstimate | None:
    """Estimate energy (MWh) and carbon (tCO2e); ``None`` without hours or system."""
    if cluster is None or gpu_hours is None or gpu_hours <= 0:
        return None
    kwh = gpu_hours * cluster.gpu_power_w * utilisation / 1000.0
    site = cluster.site_carbon_intensity_g_per_kwh
    intensity = site if site is not None else cluster.carbon_intensity_g_per_kwh
    assumptions = [
        gettext(
            # xgettext:no-python-format
            "Each GPU is taken to draw {share} of its {watts} W rating on average; a "
            "measurement study of 8-GPU H100 nodes found AI training used about 76% "
            "of rated node power and that estimates from rated power alone were "
            "27-37% off ({source})."
        ).format(
            share=percent(utilisation),
            watts=grouped(cluster.gpu_power_w),
            source=UTILISATION_SOURCE,
        ),
        gettext(
            "Only GPU power is counted: CPUs, memory, network, storage and cooling "
            "overhead are not included."
        ),
    ]
    if site is not None:
        note = (
            gettext(cluster.site_carbon_note)
            if cluster.site_carbon_note
            else gettext("The site reports its own figure.")
        )
        assumptions.append(
            gettext(
                "Carbon intensity {intensity} gCO2e/kWh is the site's own figure "
                "instead of the national grid's {grid}."
            ).format(
                intensity=grouped(intensity, 3),
                grid=grouped(cluster.carbon_intensity_g_per_kwh, 3),
            )
            + " "
            + note
        )
    else:
        assumptions.append(
            gettext(
                "Carbon intensity {intensity} gCO2e/kWh is the host country's grid "
                "average ({source})."
            ).format(
                intensity=grouped(intensity, 3),
                source=cluster.carbon_source or gettext("source not recorded"),
            )
        )
    return EnergyEstimate(
        gpu_hours=gpu_hours,
        gpu_power_w=cluster.gpu_power_w,
        utilisation=utilisation,
        energy_mwh=kwh / 1000.0,
        carbon_intensity_g_per_kwh=intensity,
        carbon_t_co2e=kwh * intensity / 1e6,
        assumptions=tuple(assumptions),
    )
