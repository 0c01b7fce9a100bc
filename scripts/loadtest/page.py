"""The wizard's form, read as a browser would submit it, and the markers of its answers."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

# --------------------------------------------------------------------------------
# The page's form, read as a browser would submit it
# --------------------------------------------------------------------------------


class FormReader(HTMLParser):
    """The named controls of ``<form id="wizard-form">`` with the values a browser
    would submit (checked boxes only, the selected option, textarea text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.depth = 0
        self.fields: list[tuple[str, str]] = []
        self._textarea: str | None = None
        self._text: list[str] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._option_value: str | None = None
        self._option_selected = False
        self._option_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == "wizard-form":
            self.inside = True
            return
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = (a.get("type") or "text").lower()
            if kind in ("submit", "button", "image", "reset", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            value = a.get("value")
            self.fields.append(
                (name, "on" if value is None and kind == "checkbox" else value or "")
            )
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []
        elif tag == "select" and name:
            self._select, self._options = name, []
        elif tag == "option" and self._select is not None:
            self._option_value = a.get("value")
            self._option_selected = "selected" in a
            self._option_text = []

    def handle_data(self, data):
        if self._textarea is not None:
            self._text.append(data)
        if self._option_value is not None or (
            self._select and self._option_text is not None
        ):
            self._option_text.append(data)

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._text)
            # The HTML parser keeps the newline a browser drops after <textarea>.
            self.fields.append(
                (self._textarea, text[1:] if text.startswith("\n") else text)
            )
            self._textarea = None
        elif tag == "option" and self._select is not None:
            value = self._option_value
            if value is None:
                value = "".join(self._option_text).strip()
            self._options.append((value, self._option_selected))
            self._option_value = None
        elif tag == "select" and self._select is not None:
            chosen = [v for v, selected in self._options if selected]
            if chosen or self._options:
                self.fields.append((self._select, (chosen or [self._options[0][0]])[0]))
            self._select = None


# In an autosave's answer (out of band): the saved bases of the inputs it sent, and
# the page's region keys (its rows' values included) and revision.
BASES_UPDATE = re.compile(r'<div id="bases-update" hidden data-bases="([^"]*)"')
HIDDEN = re.compile(
    r'<input\s+type="hidden" name="(regions|revision)" id="[a-z-]+-field" '
    r'value="([^"]*)"'
)
STATE = re.compile(r'id="save-status"[^>]*data-state="([a-z]+)"')


def take_answer(fields: dict, answer: str) -> None:
    """Keep in ``fields`` (the form as the page would post it next) what the page's
    script keeps from an autosave's answer (static/js/app.js): the saved bases
    merged into ``bases``, and the regions' keys and the revision."""
    update = BASES_UPDATE.search(answer)
    if update:
        bases = json.loads(fields.get("bases") or "{}")
        bases.update(json.loads(html.unescape(update.group(1))))
        fields["bases"] = json.dumps(bases)
    for name, value in HIDDEN.findall(answer):
        fields[name] = html.unescape(value)
