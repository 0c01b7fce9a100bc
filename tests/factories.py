"""factory_boy factories for users, proposals and their repeatable entries."""

from decimal import Decimal

import factory
from django.contrib.auth.models import Group, User
from django.utils import timezone

from proposals.models import (
    AccountProfile,
    Cluster,
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.eu")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def save_password(obj, create, extracted, **kwargs):
        if create:
            obj.save()

    @factory.post_generation
    def verified(obj, create, extracted, **kwargs):
        """Confirmed address unless ``verified=False``."""
        if create and extracted is not False:
            AccountProfile.objects.get_or_create(
                user=obj,
                defaults={"email": obj.email.lower(), "verified_at": timezone.now()},
            )


class StaffUserFactory(UserFactory):
    @factory.post_generation
    def staff_group(obj, create, extracted, **kwargs):
        if create:
            obj.groups.add(Group.objects.get_or_create(name="Support staff")[0])


def cluster(slug: str = "lumi-g") -> Cluster:
    """A catalogue entry loaded by the data migration."""
    return Cluster.objects.get(slug=slug)


class ProposalFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Proposal

    owner = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Proposal {n}")
    organisation_name = "Example AI Oy"
    organisation_kind = Proposal.OrganisationKind.STARTUP
    organisation_country = "FI"
    vat_number = "FI20774740"
    system = factory.LazyFunction(cluster)
    total_gpu_hours = Decimal("4000")
    max_gpus_per_job = 4


class CodeEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CodeEntry

    proposal = factory.SubFactory(ProposalFactory)
    role = CodeEntry.Role.MAIN
    name = "PyTorch"
    version = "2.5"
    references = "https://pytorch.org"
    description = "Training loop in PyTorch 2.5 with FSDP."
    position = factory.Sequence(int)


class JobTypeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = JobType

    proposal = factory.SubFactory(ProposalFactory)
    title = "Training"
    gpus = 8
    hours = Decimal("4")
    count = 10
    position = factory.Sequence(int)


class ScalingMeasurementFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ScalingMeasurement

    proposal = factory.SubFactory(ProposalFactory)
    gpus = 4
    throughput = Decimal("1200")
    unit = "samples/s"
    position = factory.Sequence(int)


class UsageMonthFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UsageMonth

    proposal = factory.SubFactory(ProposalFactory)
    from_month = 1
    to_month = 1
    gpu_hours = Decimal("1000")
    position = factory.Sequence(int)
