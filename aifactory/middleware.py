"""Security headers that Django 5.2 does not set by itself."""

from django.conf import settings

# No inline script, no third-party origin: htmx, Bootstrap and our own JavaScript are all
# served from our static files. Styles allow inline attributes because the charts are
# inline SVG written by matplotlib, which styles every element with a style attribute.
DEFAULT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'self'; object-src 'none'"
)


class ContentSecurityPolicyMiddleware:
    """Add a strict Content-Security-Policy header to every HTML response."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_CSP)

    def __call__(self, request):
        response = self.get_response(request)
        if self.policy and not request.path.startswith("/admin/"):
            response.headers.setdefault("Content-Security-Policy", self.policy)
        return response
