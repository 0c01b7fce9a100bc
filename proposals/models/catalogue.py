"""The cluster catalogue: the systems an applicant can choose, as data."""

from django.core.exceptions import ValidationError
from django.core.validators import (
    MaxValueValidator,
    MinValueValidator,
    RegexValidator,
)
from django.db import models
from django.db.models import Q

from proposals.domain.terms import UNITS

from .constraints import check, nonneg, positive

# "2027", "2027-01" or "2027-01-15": as precise as the source is, never more.
EXPECTED_FORMAT = r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$"
EXPECTED_HELP = "A year, year-month or date: 2027, 2027-01 or 2027-01-15."
SOURCE_HELP = "URL or document title; start with “Unverified” when not checked."
# The figures the engine computes with: a system in production must have them.
TARGET_FIGURES = (
    "gpus_per_node",
    "gpu_model",
    "gpu_memory_gb",
    "gpu_power_w",
    "carbon_intensity_g_per_kwh",
)


class Cluster(models.Model):
    """A GPU system that AI Factory calls give access to (editable in the admin)."""

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    site = models.CharField(max_length=200, blank=True)
    country = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2 code")
    # A system announced but not yet in production is in the catalogue with what
    # is public about it (its figures blank where no document states them); it
    # cannot be chosen as a target (the wizard and the router say from when).
    in_production = models.BooleanField(
        default=True,
        help_text="Off: shown with its expected date, never offered as a target.",
    )
    expected_in_production = models.CharField(
        "expected in production from",
        max_length=10,
        blank=True,
        validators=[RegexValidator(EXPECTED_FORMAT, EXPECTED_HELP)],
        help_text=EXPECTED_HELP + " Blank when no document states it.",
    )
    production_source = models.CharField(
        "production status source",
        max_length=500,
        blank=True,
        help_text=SOURCE_HELP,
    )
    production_checked = models.DateField(
        "production status checked on", null=True, blank=True
    )
    gpus_per_node = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=positive(64)
    )
    gpu_model = models.CharField(max_length=100, blank=True)
    gpu_memory_gb = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=positive(4096)
    )
    gpu_power_w = models.PositiveIntegerField(
        "GPU board power (W)", null=True, blank=True, validators=positive(5000)
    )
    gcds_per_gpu = models.PositiveSmallIntegerField(
        "compute dies per GPU",
        default=1,
        validators=positive(8),
        help_text="2 on LUMI-G: Slurm shows each MI250X as two GCDs.",
    )
    partitions = models.JSONField(
        default=list,
        blank=True,
        help_text='List of {"name", "max_nodes", "max_walltime_hours"} objects: '
        "each partition's per-job limits.",
    )
    default_partition = models.CharField(max_length=50, blank=True)
    carbon_intensity_g_per_kwh = models.PositiveIntegerField(
        "grid carbon intensity (gCO2e/kWh)",
        null=True,
        blank=True,
        validators=nonneg(2000),
    )
    carbon_source = models.CharField(max_length=300, blank=True)
    site_carbon_intensity_g_per_kwh = models.PositiveIntegerField(
        "site carbon intensity override (gCO2e/kWh)",
        null=True,
        blank=True,
        validators=nonneg(2000),
    )
    site_carbon_note = models.CharField(max_length=300, blank=True)
    billing_note = models.CharField(max_length=500, blank=True)
    source_url = models.URLField(max_length=500, blank=True)
    # How the system bills (shown next to GPU-hours in the wizard and the exports).
    billing_unit = models.CharField(
        max_length=20,
        choices=list(UNITS.items()),
        default="gpu_hours",
        help_text="The unit the system's allocations are counted in.",
    )
    billing_unit_gpu_hours = models.FloatField(
        "GPU-hours per billing unit",
        default=1.0,
        validators=[MinValueValidator(0.001), MaxValueValidator(1000)],
        help_text="4 when a node-hour is 4 GPU-hours (Leonardo Booster).",
    )
    billing_unit_source = models.CharField(
        max_length=500, blank=True, help_text="URL or document title."
    )
    billing_unit_checked = models.DateField(
        "billing unit checked on", null=True, blank=True
    )
    # Peak throughput of one physical GPU, from the vendor's datasheet (the compute
    # estimate, the MFU cross-check and the system comparison read it).
    peak_bf16_tflops = models.FloatField(
        "peak dense BF16/FP16 TFLOP/s per GPU",
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001), MaxValueValidator(100000)],
        help_text="Tensor/matrix units, without sparsity, per physical GPU "
        "(one MI250X, not one GCD).",
    )
    peak_fp32_tflops = models.FloatField(
        "peak FP32 TFLOP/s per GPU",
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001), MaxValueValidator(100000)],
        help_text="Vector FP32, per physical GPU.",
    )
    peak_source = models.CharField(
        "peak throughput source",
        max_length=500,
        blank=True,
        help_text="Datasheet URL or title.",
    )
    peak_checked = models.DateField("peak throughput checked on", null=True, blank=True)
    # The size of the whole system, separate from the partitions' per-job limits
    # (PLAN-3 compares the average busy nodes with it).
    gpu_nodes = models.PositiveIntegerField(
        "GPU nodes in the system",
        null=True,
        blank=True,
        validators=positive(1_000_000),
        help_text="All GPU nodes of the system (LUMI-G: 2,978), not the most one "
        "job may use.",
    )
    gpu_nodes_source = models.CharField(
        "system size source",
        max_length=500,
        blank=True,
        help_text=SOURCE_HELP,
    )
    gpu_nodes_checked = models.DateField(
        "system size checked on", null=True, blank=True
    )
    # How a job asks for GPUs, as the system's documentation writes it (the scaling
    # kit's scripts read these; issue 37).
    cores_per_task = models.PositiveSmallIntegerField(
        "CPU cores per Slurm GPU",
        null=True,
        blank=True,
        validators=positive(512),
        help_text="Cores each task gets with one Slurm GPU (LUMI-G: 7 per GCD).",
    )
    qos = models.CharField(
        "QoS for short jobs",
        max_length=50,
        blank=True,
        help_text="The --qos a job needs, if any (MareNostrum 5 ACC: acc_ehpc).",
    )
    cpu_bind = models.CharField(
        "CPU binding",
        max_length=300,
        blank=True,
        help_text="srun --cpu-bind value; blank for cores.",
    )
    job_facts_source = models.CharField(
        "job script facts source",
        max_length=500,
        blank=True,
        help_text="URL or document title for partitions, QoS, cores and binding.",
    )
    job_facts_checked = models.DateField(
        "job script facts checked on",
        null=True,
        blank=True,
        help_text="Blank: the scripts say the facts are unverified.",
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            check(
                "cluster_gpus_per_node_positive",
                Q(gpus_per_node__gte=1) | Q(gpus_per_node__isnull=True),
            ),
            check(
                "cluster_in_production_has_figures",
                Q(in_production=False)
                | Q(
                    gpus_per_node__isnull=False,
                    gpu_memory_gb__isnull=False,
                    gpu_power_w__isnull=False,
                    carbon_intensity_g_per_kwh__isnull=False,
                ),
            ),
            check("cluster_gcds_positive", Q(gcds_per_gpu__gte=1)),
            check("cluster_billing_unit_positive", Q(billing_unit_gpu_hours__gt=0)),
            check(
                "cluster_peak_bf16_positive",
                Q(peak_bf16_tflops__gt=0) | Q(peak_bf16_tflops__isnull=True),
            ),
            check(
                "cluster_gpu_nodes_positive",
                Q(gpu_nodes__gt=0) | Q(gpu_nodes__isnull=True),
            ),
            check(
                "cluster_peak_fp32_positive",
                Q(peak_fp32_tflops__gt=0) | Q(peak_fp32_tflops__isnull=True),
            ),
        ]

    def __str__(self):
        return self.name

    def _availability(self):
        from proposals.domain.types import Cluster as Entry

        return Entry(
            slug=self.slug,
            name=self.name,
            in_production=self.in_production,
            expected_in_production=self.expected_in_production,
        )

    def not_a_target(self) -> str:
        """Why the system cannot be chosen as a target ("": it can)."""
        return self._availability().not_a_target()

    def expected_text(self) -> str:
        """ "in production from 2027" (the domain's words)."""
        return self._availability().expected_text()

    def clean(self):
        if self.in_production:
            missing = {
                name: "A system in production needs this figure."
                for name in TARGET_FIGURES
                if getattr(self, name) in (None, "")
            }
            if missing:
                raise ValidationError(missing)


class GpuModel(models.Model):
    """A GPU variant and its peak throughput per physical GPU, from the vendor's
    datasheet (editable in the admin): the MFU check (PLAN-2) judges a measurement
    against the variant its "Hardware tested on" names (H100 PCIe, H100 NVL, ...)."""

    slug = models.SlugField(max_length=50, unique=True)
    family = models.CharField(
        max_length=20, help_text="The model as people write it: A100, H100, MI250X."
    )
    name = models.CharField(max_length=100)
    form = models.CharField(
        "form factor",
        max_length=10,
        blank=True,
        help_text="SXM, PCIe, NVL or OAM; blank when there is one form only.",
    )
    memory_gb = models.PositiveSmallIntegerField(
        "memory (GB)", null=True, blank=True, validators=positive(4096)
    )
    peak_bf16_tflops = models.FloatField(
        "peak dense BF16/FP16 TFLOP/s",
        validators=[MinValueValidator(0.001), MaxValueValidator(100000)],
        help_text="Tensor/matrix units, without sparsity, per physical GPU.",
    )
    peak_fp32_tflops = models.FloatField(
        "peak FP32 TFLOP/s",
        null=True,
        blank=True,
        validators=[MinValueValidator(0.001), MaxValueValidator(100000)],
    )
    default = models.BooleanField(
        default=False,
        help_text="The variant assumed when a text names only the family (one per "
        "family).",
    )
    source = models.CharField(max_length=500, help_text="Datasheet URL or title.")
    checked = models.DateField("checked on")

    class Meta:
        ordering = ["family", "name"]
        verbose_name = "GPU variant"
        constraints = [
            check("gpu_model_peak_positive", Q(peak_bf16_tflops__gt=0)),
        ]

    def __str__(self):
        return self.name
