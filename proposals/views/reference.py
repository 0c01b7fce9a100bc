"""The rule reference page, generated from the same registry the engine runs."""

from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from proposals.domain.findings import STEPS, rules
from proposals.domain.reference import STEP_TITLES


@require_GET
def rule_reference(request):
    all_rules = rules()
    sections = [
        (STEP_TITLES[step], [rule for rule in all_rules if rule.step == step])
        for step in STEPS
    ]
    return TemplateResponse(request, "proposals/rules.html", {"sections": sections})
