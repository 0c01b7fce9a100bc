"""URLs of the review workflow (added to ``proposals.urls``).

Applicant pages live under ``proposals/<pk>/submission/`` (``proposals/<pk>/review/``
is the wizard's last step); staff pages under ``staff/``.
"""

from django.urls import path

from proposals.views import review

review_urlpatterns = [
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
    path("start/", review.landing, name="landing"),
    path("staff/review/", review.staff_queue, name="review_queue"),
    path("staff/review/queue.csv", review.staff_queue_csv, name="review_queue_csv"),
    path(
        "staff/review/<int:pk>/handler/",
        review.staff_assign,
        name="staff_assign",
    ),
    path("staff/review/<int:pk>/", review.staff_review, name="staff_review"),
    path(
        "staff/review/<int:pk>/comments/",
        review.staff_comment,
        name="staff_comment",
    ),
    path(
        "staff/review/<int:pk>/status/",
        review.staff_set_status,
        name="staff_set_status",
    ),
    path("staff/review/<int:pk>/diff/", review.staff_diff, name="staff_diff"),
    path(
        "staff/review/<int:pk>/assessment/",
        review.staff_assess,
        name="staff_assess",
    ),
]
