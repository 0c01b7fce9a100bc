"""Export and import URLs; ``proposals/urls.py`` adds them to the ``proposals``
namespace."""

from django.urls import path

from proposals.views import exports

urlpatterns = [
    path("proposals/import/", exports.import_json, name="import_json"),
    path("proposals/<int:pk>/export/", exports.export_portal, name="export_portal"),
    path(
        "proposals/<int:pk>/export.md", exports.export_markdown, name="export_markdown"
    ),
    path("proposals/<int:pk>/export.pdf", exports.export_pdf, name="export_pdf"),
    path("proposals/<int:pk>/export.json", exports.export_json, name="export_json"),
    path(
        "proposals/<int:pk>/import/",
        exports.import_json_revision,
        name="import_json_revision",
    ),
]
