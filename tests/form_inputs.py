"""The step form's inputs as a browser sends them, read from a page's HTML (the
property test's tabs and the autosave benches post what the page would)."""

import html
import re


def unescape(text: str) -> str:
    return html.unescape(text)


def inputs(page):
    """The step form's inputs as the page shows them (name -> value)."""
    values = {}
    for match in re.finditer(r"<(input|textarea|select)\b([^>]*)>", page):
        tag, attrs = match.group(1), match.group(2)
        name = re.search(r'\bname="([^"]*)"', attrs)
        if not name:
            continue
        name = name.group(1)
        if tag == "input":
            kind = re.search(r'\btype="([^"]*)"', attrs)
            kind = kind.group(1) if kind else "text"
            if kind in ("submit", "button"):
                continue
            if kind in ("checkbox", "radio") and " checked" not in attrs:
                continue
            value = re.search(r'\bvalue="([^"]*)"', attrs)
            values[name] = unescape(value.group(1)) if value else ""
        elif tag == "textarea":
            end = page.index("</textarea>", match.end())
            values[name] = unescape(page[match.end() : end].lstrip("\n"))
        else:
            end = page.index("</select>", match.end())
            chosen = re.search(
                r'<option value="([^"]*)"[^>]*selected', page[match.end() : end]
            )
            values[name] = unescape(chosen.group(1)) if chosen else ""
    return values
