"""Every non-trivial read. Functions take keyword-only arguments and are query-aware.

One module per reader: ``proposals`` (the applicant's own proposals, with ``rows``
reading a proposal's tables in one query), ``queue`` (the support staff and their
queue), ``review`` (the staff review page) and ``accounts``. Import them from here.
"""

from .accounts import (
    account_address_in_use,
    account_data_proposals,
    account_is_verified,
    account_memberships,
    account_proposal_counts,
    account_team_handovers,
    verified_addresses,
)
from .proposals import (
    member_filter,
    member_may,
    member_role,
    number_format_of,
    pending_import_document,
    proposal_get_for_editing,
    proposal_get_for_member,
    proposal_list_for_member,
    proposal_member_exists,
    proposal_with_children,
    proposals_of_member,
    team_role,
)
from .queue import (
    QUEUE_ORDERS,
    QUEUE_PAGE_SIZE,
    QUEUE_SHOW,
    STAFF_GROUP,
    queue_late_since,
    review_queue,
    user_is_support_staff,
)
from .review import (
    proposal_get_for_reader,
    review_assessments,
    review_comment_for,
    review_comment_threads,
    review_conflict,
    review_get_for_staff,
    review_open_comments_by_step,
    review_revision,
    review_revisions,
    review_stale_status,
    review_status_changes,
    staff_members,
)
from .rows import (
    attach_rows,
)

__all__ = [
    "account_address_in_use",
    "account_data_proposals",
    "account_is_verified",
    "account_memberships",
    "account_proposal_counts",
    "account_team_handovers",
    "verified_addresses",
    "number_format_of",
    "pending_import_document",
    "member_filter",
    "member_may",
    "member_role",
    "proposal_get_for_editing",
    "proposal_get_for_member",
    "proposal_list_for_member",
    "proposal_member_exists",
    "proposal_with_children",
    "proposals_of_member",
    "team_role",
    "QUEUE_ORDERS",
    "QUEUE_PAGE_SIZE",
    "QUEUE_SHOW",
    "STAFF_GROUP",
    "queue_late_since",
    "review_queue",
    "user_is_support_staff",
    "proposal_get_for_reader",
    "review_assessments",
    "review_comment_for",
    "review_comment_threads",
    "review_conflict",
    "review_get_for_staff",
    "review_open_comments_by_step",
    "review_revision",
    "review_revisions",
    "review_stale_status",
    "review_status_changes",
    "staff_members",
    "attach_rows",
]
