"""Sign-up; the other account pages are Django's own auth views."""

from django.contrib.auth import login
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from proposals.forms import SignUpForm


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("proposals:list")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("proposals:list")
    return TemplateResponse(request, "registration/signup.html", {"form": form})
