"""Every write goes through here: keyword-only arguments, one transaction each, taking
and returning plain data and model instances (never forms). One module per room:
the wizard's saves and rows, imports, the review workflow, outgoing mail.
"""

from .imports import (
    PendingImportError,
    pending_import_confirm,
    pending_import_create,
    proposal_import,
    proposal_import_revision,
)
from .mail import (
    RETRY_BASE_DELAY,
    deliver_mail,
    mail_deliver,
    mail_queue,
    mail_retry,
)
from .proposals import (
    ROW_MODELS,
    RevisionConflict,
    RowAction,
    SaveOutcome,
    proposal_add_row,
    proposal_create,
    proposal_delete_row,
    proposal_move_row,
    proposal_save_changes,
    proposal_save_step,
)
from .review import (
    STAFF_ADMIN_PERMISSIONS,
    AssessmentProblems,
    ReviewError,
    comment_add,
    review_assess,
    review_assign,
    review_record_edit,
    review_set_status,
    review_submit,
    staff_group_grant_rights,
)

__all__ = [
    "proposal_create",
    "RevisionConflict",
    "SaveOutcome",
    "proposal_save_changes",
    "proposal_add_row",
    "proposal_delete_row",
    "proposal_move_row",
    "RowAction",
    "proposal_save_step",
    "ROW_MODELS",
    "proposal_import",
    "proposal_import_revision",
    "PendingImportError",
    "pending_import_create",
    "pending_import_confirm",
    "ReviewError",
    "staff_group_grant_rights",
    "review_submit",
    "review_set_status",
    "review_assign",
    "review_assess",
    "AssessmentProblems",
    "review_record_edit",
    "comment_add",
    "STAFF_ADMIN_PERMISSIONS",
    "deliver_mail",
    "mail_queue",
    "mail_deliver",
    "mail_retry",
    "RETRY_BASE_DELAY",
]
