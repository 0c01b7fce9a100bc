from django.urls import path, re_path

from proposals.exports.urls import urlpatterns as exports_urlpatterns
from proposals.review_urls import review_urlpatterns
from proposals.views import proposals, reference, wizard

app_name = "proposals"

urlpatterns = [
    path("rules/", reference.rule_reference, name="rules"),
    path("proposals/", proposals.proposal_list, name="list"),
    path("proposals/new/", proposals.proposal_create, name="create"),
    path("proposals/<int:pk>/", proposals.proposal_detail, name="detail"),
    path("proposals/<int:pk>/edit/", proposals.proposal_edit, name="edit"),
    # Only the step names, so that other pages under a proposal keep their own URLs.
    re_path(
        r"^proposals/(?P<pk>[0-9]+)/(?P<step>{})/$".format("|".join(wizard.STEP_SLUGS)),
        wizard.wizard,
        name="step",
    ),
    # Row operations of a step's tables: small endpoints the row buttons post to.
    re_path(
        r"^proposals/(?P<pk>[0-9]+)/(?P<step>{})/rows/(?P<kind>[a-z]+)/"
        r"(?:(?P<row>[0-9]+)/)?(?P<operation>add|delete|up|down)/$".format(
            "|".join(wizard.STEP_SLUGS)
        ),
        wizard.row_operation,
        name="row",
    ),
]
urlpatterns += review_urlpatterns
urlpatterns += exports_urlpatterns
