"""The site's address in templates that are e-mails (Django's password-reset mail)."""

from django import template

from proposals.links import site_url as absolute

register = template.Library()


@register.simple_tag
def site_url(path: str = "/") -> str:
    """``{% site_url some_path %}``: the configured site address plus ``path``."""
    return absolute(path)
