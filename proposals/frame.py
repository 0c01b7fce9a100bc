"""The site's one frame (``templates/base.html``: the navigation, the messages, the
footer) around a page written in Jinja2.

A Jinja2 page extends ``frame.html`` (``proposals/jinja2/frame.html``) and fills the
blocks ``title``, ``main_class``, ``extra_head`` and ``content``, as a Django page
fills ``base.html``'s. ``frame.html`` hands them to :func:`frame`, which renders the
Django template ``framed.html``: ``base.html`` with those blocks and the page's own
context (what the view gave it, as a Django page's frame reads it, and a test's
``response.context``), through the request's context processors. So the frame is
written once, in one engine, and a page moves to Jinja2 without a second copy of it.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

#: The blocks a Jinja2 page may fill; the Django frame reads these names.
BLOCKS = ("title", "main_class", "extra_head", "content")
#: What the Django frame has of its own (the CSRF context processor's token, read
#: once per page) and does not take from the Jinja2 page's context.
FRAME_OWN = ("csrf_input", "csrf_token")


@pass_context
def frame(context: Context, blocks) -> Markup:
    """The whole page: ``templates/framed.html`` with the Jinja2 page's ``blocks``
    (``self`` in ``frame.html``), each rendered once; a block the page leaves empty
    keeps ``base.html``'s own. The page's context goes along, the environment's
    globals (``url``, ``frame``, gettext ...) left out."""
    filled = {name: blocks[name]() for name in BLOCKS}
    shared = context.environment.globals
    own = {
        name: value
        for name, value in context.parent.items()
        if name not in shared and name not in FRAME_OWN
    }
    return Markup(
        render_to_string(
            "framed.html", {**own, "frame": filled}, request=context["request"]
        )
    )
