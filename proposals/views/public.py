"""Pages for people who have not started yet: the landing page, the "first five
minutes" guide, the glossary, the privacy notice and the accessibility statement.
Readable without an account."""

from django.conf import settings
from django.contrib.staticfiles import finders
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from proposals import accessibility as statement
from proposals import retention, selectors
from proposals.assess import terms_from_db
from proposals.domain.calls import calls, preparation
from proposals.domain.glossary import TERM_BY_SLUG, TERMS

# Written by ``manage.py wizard_screenshot`` (a real page, rendered by Chromium).
SCREENSHOT = "img/wizard-screenshot.png"


@require_GET
def home(request):
    """Anonymous visitors see what the tool is; applicants go to their proposals,
    support staff to the review queue."""
    if request.user.is_authenticated:
        if selectors.user_is_support_staff(user=request.user):
            return redirect("proposals:review_queue")
        return redirect("proposals:list")
    return TemplateResponse(
        request,
        "landing.html",
        {
            "calls": calls(terms_from_db()),
            "screenshot": SCREENSHOT if finders.find(SCREENSHOT) else None,
        },
    )


@require_GET
def guide(request):
    """The first five minutes: which call, what to have at hand, how long it takes."""
    return TemplateResponse(
        request,
        "guide.html",
        {"calls": calls(terms_from_db()), "preparation": preparation()},
    )


@require_GET
def glossary(request):
    """Every term once, each with an anchor that headers and help texts link to."""
    entries = [
        (term, [TERM_BY_SLUG[slug] for slug in term.see])
        for term in sorted(TERMS, key=lambda t: t.name.casefold())
    ]
    return TemplateResponse(request, "glossary.html", {"entries": entries})


@require_GET
def privacy(request):
    """The privacy notice: what is stored, why, for how long (the periods that
    ``manage.py expire_stale`` applies), who sees it, and the person's rights."""
    return TemplateResponse(
        request,
        "privacy.html",
        {
            "expiring": retention.expiring(),
            "contact": settings.PRIVACY_CONTACT,
        },
    )


@require_GET
def accessibility(request):
    """The accessibility statement: conformance as the project's own browser tests
    show it, the known gaps, the contact and the statement's date
    (proposals/accessibility.py)."""
    return TemplateResponse(
        request,
        "accessibility.html",
        {
            "statement": statement,
            "contact": settings.ACCESSIBILITY_CONTACT or settings.PRIVACY_CONTACT,
        },
    )
