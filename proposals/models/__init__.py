"""The models, one module per room: the cluster catalogue, the proposal (the two
portal sections, "AI Factory selection" and "Code details and feasibility", with their
repeatable entries), the staff review, outgoing mail, checked files waiting for
confirmation, and account profiles. Import them from here.

Drafts may be incomplete, so everything the portal needs only at the end is blank-able;
values that can never be right (negative hours, zero GPUs in a job row, percentages
above 100) are refused by validators and by database constraints alike.
"""

from .accounts import (
    AccountProfile,
    ProviderIdentity,
)
from .calls import (
    CallFamily,
    CallMode,
    CountryEligibility,
)
from .catalogue import (
    Cluster,
    GpuModel,
)
from .constraints import (
    MAX_GPU_HOURS,
    MAX_GPUS,
    MAX_HOURS_PER_JOB,
    MAX_JOBS,
    MAX_MONTHS,
    MAX_TB,
)
from .desk import (
    CannedReply,
    DeskClosure,
    SavedQueueView,
    StaffDigest,
)
from .entries import (
    CodeEntry,
    JobType,
    ProposalChild,
    ScalingMeasurement,
    UsageMonth,
)
from .exports import (
    PdfExport,
)
from .imports import (
    PendingImport,
)
from .log_readings import (
    LogReading,
    LogUpload,
)
from .mail import (
    OutgoingMail,
)
from .preferences import (
    Preferences,
)
from .proposal import (
    Proposal,
)
from .review import (
    AppendOnlyModel,
    ImmutableRecordError,
    ProposalRevision,
    ReviewComment,
    ReviewState,
    ReviewVisit,
    StatusChange,
    TechnicalAssessment,
)
from .routes import (
    AccessRoute,
    AiFactory,
    Cutoff,
    CutoffReminder,
    ProposalRoute,
)
from .scaling_kits import (
    ScalingKit,
)
from .team import (
    FORMER_MEMBER,
    ROLE_LABELS,
    FieldStamp,
    Invitation,
    Membership,
    NotificationMute,
    Presence,
    StaffConflict,
    TeamEvent,
)

__all__ = [
    "AccessRoute",
    "AiFactory",
    "Cutoff",
    "CutoffReminder",
    "ProposalRoute",
    "CannedReply",
    "DeskClosure",
    "SavedQueueView",
    "StaffDigest",
    "MAX_GPU_HOURS",
    "MAX_GPUS",
    "MAX_HOURS_PER_JOB",
    "MAX_JOBS",
    "MAX_TB",
    "MAX_MONTHS",
    "CallFamily",
    "CallMode",
    "Cluster",
    "GpuModel",
    "CountryEligibility",
    "Proposal",
    "ProposalChild",
    "CodeEntry",
    "ScalingMeasurement",
    "JobType",
    "UsageMonth",
    "ImmutableRecordError",
    "AppendOnlyModel",
    "ProposalRevision",
    "StatusChange",
    "ReviewState",
    "ReviewVisit",
    "ReviewComment",
    "TechnicalAssessment",
    "OutgoingMail",
    "PendingImport",
    "Preferences",
    "AccountProfile",
    "ProviderIdentity",
    "PdfExport",
    "LogReading",
    "LogUpload",
    "ScalingKit",
    "FORMER_MEMBER",
    "ROLE_LABELS",
    "FieldStamp",
    "Invitation",
    "Membership",
    "NotificationMute",
    "Presence",
    "StaffConflict",
    "TeamEvent",
]
