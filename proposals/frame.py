"""The site's one frame (``templates/base.html``: the navigation, the messages, the
footer) around a page written in Jinja2.

A Jinja2 page extends ``frame.html`` (``proposals/jinja2/frame.html``) and fills the
blocks ``title``, ``main_class``, ``extra_head`` and ``content``, as a Django page
fills ``base.html``'s. ``frame.html`` asks :func:`frame` for what goes around the
content: the Django template ``framed.html`` (``base.html`` with the page's title,
main class and head, and the page's own context: what the view gave it, as a Django
page's frame reads it, and a test's ``response.context``), rendered through the
request's context processors, with a marker where the content goes, and cut there.
The content block is then written in place, between the two halves, so a page of
several hundred kilobytes is not copied from one engine's string into the other's.
The frame is written once, in one engine, and a page moves to Jinja2 without a
second copy of it.
"""

from __future__ import annotations

import secrets
from typing import NamedTuple

from django.template.loader import render_to_string
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

#: The blocks a Jinja2 page fills around its content; the Django frame reads them.
BLOCKS = ("title", "main_class", "extra_head")
#: What the Django frame has of its own (the CSRF context processor's token, read
#: once per page) and does not take from the Jinja2 page's context.
FRAME_OWN = ("csrf_input", "csrf_token")

#: Where the content goes in the rendered frame: drawn at start-up, so nothing the
#: frame itself writes (a name, a message, a title) can contain it.
CONTENT = f"<!--content-{secrets.token_hex(16)}-->"


class Frame(NamedTuple):
    """The page's frame, before and after its content."""

    head: Markup
    tail: Markup


@pass_context
def frame(context: Context, blocks) -> Frame:
    """``templates/framed.html`` with the Jinja2 page's ``blocks`` (``self`` in
    ``frame.html``), cut where the content goes; a block the page leaves empty keeps
    ``base.html``'s own. The page's context goes along, the environment's globals
    (``url``, ``frame``, gettext ...) left out."""
    filled = {name: blocks[name]() for name in BLOCKS}
    shared = context.environment.globals
    own = {
        name: value
        for name, value in context.parent.items()
        if name not in shared and name not in FRAME_OWN
    }
    html = render_to_string(
        "framed.html",
        {**own, "frame": filled, "content": Markup(CONTENT)},
        request=context["request"],
    )
    head, found, tail = html.partition(CONTENT)
    if not found:
        raise ValueError("templates/framed.html writes no {{ content }}")
    return Frame(Markup(head), Markup(tail))
