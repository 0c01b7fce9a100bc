"""The rule reference page, generated from the same registry the engine runs."""

from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from proposals.domain.findings import rules
from proposals.domain.sections import SECTIONS


@require_GET
def rule_reference(request):
    all_rules = rules()
    sections = [
        (section.title, [rule for rule in all_rules if rule.step == section.slug])
        for section in SECTIONS
    ]
    return TemplateResponse(request, "proposals/rules.html", {"sections": sections})
