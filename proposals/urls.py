from django.urls import path, re_path

from proposals.http import MAX_DIGITS
from proposals.views import (
    calls,
    exports,
    planning,
    proposals,
    public,
    reference,
    review,
    staff,
    staff_desk,
    staff_diff,
    staff_settings,
    wizard,
)
from proposals.views import charts as chart_views
from proposals.views import paste as paste_views
from proposals.views import plan_total as plan_total_views
from proposals.views import scaling_kit as kit_views
from proposals.views import team as team_views
from proposals.views import training_logs as log_views

app_name = "proposals"

urlpatterns = [
    path("rules/", reference.rule_reference, name="rules"),
    path("glossary/", public.glossary, name="glossary"),
    path("start/", public.guide, name="guide"),
    path("calls/", calls.calls, name="calls"),
    path("calls/cutoffs.ics", calls.cutoffs_ics, name="cutoffs_ics"),
    path("calls/<slug:route>/start/", calls.calls_start, name="calls_start"),
    path(
        "proposals/<int:pk>/cutoff.ics",
        calls.proposal_cutoff_ics,
        name="proposal_cutoff_ics",
    ),
    path("proposals/", proposals.proposal_list, name="list"),
    path("proposals/new/", proposals.proposal_create, name="create"),
    path("proposals/<int:pk>/", proposals.proposal_detail, name="detail"),
    path("proposals/<int:pk>/edit/", proposals.proposal_edit, name="edit"),
    path("proposals/<int:pk>/delete/", proposals.proposal_delete, name="delete"),
    path("proposals/<int:pk>/archive/", proposals.proposal_archive, name="archive"),
    path(
        "proposals/<int:pk>/duplicate/", proposals.proposal_duplicate, name="duplicate"
    ),
    # Only the step names, so that other pages under a proposal keep their own URLs.
    re_path(
        r"^proposals/(?P<pk>[0-9]{{1,{}}})/(?P<step>{})/$".format(
            MAX_DIGITS, "|".join(wizard.STEP_SLUGS)
        ),
        wizard.wizard,
        name="step",
    ),
    # Row operations of a step's tables: small endpoints the row buttons post to.
    re_path(
        r"^proposals/(?P<pk>[0-9]{{1,{digits}}})/(?P<step>{steps})/rows/"
        r"(?P<kind>[a-z]+)/(?:(?P<row>[0-9]{{1,{digits}}})/)?"
        r"(?P<operation>add|delete|up|down|restore|discard)/$".format(
            digits=MAX_DIGITS, steps="|".join(wizard.STEP_SLUGS)
        ),
        wizard.row_operation,
        name="row",
    ),
    # The wizard's scaling chart, by the hash of the data it shows (immutable).
    re_path(
        rf"^proposals/(?P<pk>[0-9]{{1,{MAX_DIGITS}}})/chart/"
        rf"(?P<key>[0-9a-f]{{{chart_views.KEY_LENGTH}}})\.svg$",
        chart_views.scaling_chart,
        name="chart",
    ),
]

# The review workflow. Applicant pages live under proposals/<pk>/submission/
# (proposals/<pk>/review/ is the wizard's last step); staff pages under staff/.
urlpatterns += [
    path(
        "proposals/<int:pk>/submission/",
        review.review_status,
        name="review_status",
    ),
    path(
        "proposals/<int:pk>/submission/send/",
        review.review_send,
        name="review_send",
    ),
    path(
        "proposals/<int:pk>/submission/comments/",
        review.review_comment,
        name="review_comment",
    ),
    path(
        "proposals/<int:pk>/submission/comments/<slug:section>/",
        review.review_step_comments,
        name="review_step_comments",
    ),
    path("signed-in/", staff.landing, name="landing"),
    path("staff/review/", staff.staff_queue, name="review_queue"),
    path("staff/review/queue.csv", staff.staff_queue_csv, name="review_queue_csv"),
    path("staff/review/bulk/", staff_desk.staff_queue_bulk, name="review_queue_bulk"),
    path("staff/review/views/", staff_desk.staff_view_save, name="review_view_save"),
    path(
        "staff/review/views/<int:view_id>/share/",
        staff_desk.staff_view_share,
        name="review_view_share",
    ),
    path(
        "staff/review/views/<int:view_id>/delete/",
        staff_desk.staff_view_delete,
        name="review_view_delete",
    ),
    path("staff/conflicts/", staff_settings.staff_conflicts, name="staff_conflicts"),
    path("staff/settings/", staff_settings.staff_settings, name="staff_settings"),
    path(
        "staff/review/<int:pk>/handler/",
        staff.staff_assign,
        name="staff_assign",
    ),
    path(
        "staff/review/<int:pk>/assessment/",
        staff.staff_assess,
        name="staff_assess",
    ),
    path("staff/review/<int:pk>/", staff.staff_review, name="staff_review"),
    path(
        "staff/review/<int:pk>/comments/",
        staff.staff_comment,
        name="staff_comment",
    ),
    path(
        "staff/review/<int:pk>/status/",
        staff.staff_set_status,
        name="staff_set_status",
    ),
    path("staff/review/<int:pk>/diff/", staff_diff.staff_diff, name="staff_diff"),
    path(
        "staff/review/<int:pk>/canned-reply/",
        staff_desk.staff_reply_insert,
        name="staff_reply_insert",
    ),
]

# Exports and the JSON import.
urlpatterns += [
    path("proposals/import/", exports.import_json, name="import_json"),
    path("proposals/<int:pk>/export/", exports.export_portal, name="export_portal"),
    path(
        "proposals/<int:pk>/export.md", exports.export_markdown, name="export_markdown"
    ),
    path("proposals/<int:pk>/export.pdf", exports.export_pdf, name="export_pdf"),
    path(
        "proposals/<int:pk>/export/markdown/",
        exports.export_markdown_view,
        name="export_markdown_view",
    ),
    path(
        "proposals/<int:pk>/export/pdf/<int:export_id>/",
        exports.export_pdf_status,
        name="export_pdf_status",
    ),
    path(
        "proposals/<int:pk>/export/pdf/<int:export_id>/file.pdf",
        exports.export_pdf_file,
        name="export_pdf_file",
    ),
    path(
        "proposals/<int:pk>/export/pdf/<int:export_id>/retry/",
        exports.export_pdf_retry,
        name="export_pdf_retry",
    ),
    path("proposals/<int:pk>/export.json", exports.export_json, name="export_json"),
    path(
        "proposals/<int:pk>/import/",
        exports.import_json_revision,
        name="import_json_revision",
    ),
]

# Paste a table (measurements, job plan, schedule) and undo the last paste; SCAL-3's
# "use the job plan's total".
urlpatterns += [
    path(
        "proposals/<int:pk>/use-plan-total/",
        plan_total_views.use_plan_total,
        name="use_plan_total",
    ),
    path(
        "proposals/<int:pk>/paste/<slug:kind>/",
        paste_views.paste_table,
        name="paste",
    ),
    path(
        "proposals/<int:pk>/paste/<slug:kind>/undo/",
        paste_views.paste_undo,
        name="paste_undo",
    ),
]

# Measurements and job-plan rows read from training logs and sacct output.
urlpatterns += [
    path("proposals/<int:pk>/logs/", log_views.read_logs, name="logs"),
    path("proposals/<int:pk>/logs/undo/", log_views.undo_logs, name="logs_undo"),
    path(
        "proposals/<int:pk>/logs/<int:reading_id>/",
        log_views.logs_status,
        name="logs_status",
    ),
    path(
        "proposals/<int:pk>/logs/<int:reading_id>/retry/",
        log_views.logs_retry,
        name="logs_retry",
    ),
]

# Compute planning: compare the catalogue systems, copy retargeted to one of them.
urlpatterns += [
    path(
        "proposals/<int:pk>/systems/",
        planning.compare_systems,
        name="compare_systems",
    ),
    path(
        "proposals/<int:pk>/systems/copy/",
        planning.retarget_copy,
        name="retarget_copy",
    ),
]

# The scaling kit: scripts that measure what the scaling data lacks (issue 37).
urlpatterns += [
    path("proposals/<int:pk>/scaling-kit/", kit_views.kit_preview, name="kit"),
    path("proposals/<int:pk>/scaling-kit.zip", kit_views.kit_zip, name="kit_zip"),
]

# The team of a proposal, and the invitation links.
urlpatterns += [
    path("proposals/<int:pk>/team/", team_views.team, name="team"),
    path("proposals/<int:pk>/team/invite/", team_views.team_invite, name="team_invite"),
    path(
        "proposals/<int:pk>/team/invitations/<int:invitation_id>/revoke/",
        team_views.team_revoke,
        name="team_revoke",
    ),
    path(
        "proposals/<int:pk>/team/members/<int:member_id>/role/",
        team_views.team_role,
        name="team_role",
    ),
    path(
        "proposals/<int:pk>/team/members/<int:member_id>/remove/",
        team_views.team_remove,
        name="team_remove",
    ),
    path(
        "proposals/<int:pk>/team/members/<int:member_id>/owner/",
        team_views.team_transfer,
        name="team_transfer",
    ),
    path("proposals/<int:pk>/team/leave/", team_views.team_leave, name="team_leave"),
    path(
        "proposals/<int:pk>/team/notifications/",
        team_views.team_notifications,
        name="team_notifications",
    ),
    path(
        "invitations/<int:invitation_id>/accept/",
        team_views.invitation_accept,
        name="invitation_accept",
    ),
    path("invitations/<str:token>/", team_views.invitation, name="invitation"),
]
