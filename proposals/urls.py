from django.urls import path

from proposals.views import proposals, wizard

app_name = "proposals"

urlpatterns = [
    path("proposals/", proposals.proposal_list, name="list"),
    path("proposals/new/", proposals.proposal_create, name="create"),
    path("proposals/<int:pk>/", proposals.proposal_detail, name="detail"),
    path("proposals/<int:pk>/edit/", proposals.proposal_edit, name="edit"),
    path("proposals/<int:pk>/<slug:step>/", wizard.wizard, name="step"),
]
