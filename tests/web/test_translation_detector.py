"""The page walk's detector of English left on a German or French page
(tests/web/translation_check.py), checked on made-up catalogues and pages."""

from tests.web import translation_check as check

CATALOGUE = [
    ("Save settings", "Einstellungen speichern"),
    (
        "Signed in as <strong>%(name)s</strong>",
        "Angemeldet als <strong>%(name)s</strong>",
    ),
    ("Status", "Status"),  # the same in both: never flagged
]


class _Message:
    def __init__(self, msgid, msgstr):
        self.id, self.string, self.fuzzy, self.context = msgid, msgstr, False, None


def _pieces():
    return check.english_pieces([_Message(a, b) for a, b in CATALOGUE])


def test_detector_flags_marked_but_untranslated_and_unmarked_english():
    html = """<html lang="de"><body>
      <button title="Save settings">Einstellungen speichern</button>
      <span>Signed in as <strong>demo</strong></span>
      <p>Status</p>
      <p>This sentence was never marked for translation, so it stays English.</p>
      <p>Die Zahlen im Portaltext bleiben in der einfachen Form des Portals.</p>
      <p>Vous pouvez le télécharger à tout moment.</p>
      <pre>the and of the code is not checked</pre>
      <div lang="en-GB"><p>The portal text is English on purpose.</p></div>
      <p>Proposal: Detecting paper mills with the help of the literature</p>
    </body></html>"""
    found = check.offences(
        "test-page",
        html,
        language="de",
        pieces=_pieces(),
        data=["Detecting paper mills with the help of the literature"],
    )
    assert [(o.kind, o.text) for o in found] == [
        ("catalogue", "Save settings"),
        ("catalogue", "Signed in as"),
        (
            "english",
            "This sentence was never marked for translation, so it stays English.",
        ),
    ]


def test_detector_keeps_proper_names_but_flags_the_rest_of_their_msgid():
    """A tier's name kept as the calls spell it (its msgid translates to itself) is
    not English left over when it shows as a piece of another msgid; the other
    pieces of that msgid still are."""
    pieces = check.english_pieces(
        [
            _Message("Fast Lane", "Fast Lane"),
            _Message(
                "<strong>Fast Lane</strong>: hours up to %(hours)s",
                "<strong>Fast Lane</strong>: Stunden bis %(hours)s",
            ),
        ]
    )
    html = (
        '<html lang="de"><body><p><strong>Fast Lane</strong>: <em>hours up to</em></p>'
        "<p>Fast Lane</p></body></html>"
    )
    found = check.offences("p", html, language="de", pieces=pieces, data=[])
    assert [(o.kind, o.text) for o in found] == [("catalogue", "hours up to")]


def test_detector_reads_a_translation_as_the_page_language():
    """French "To" (téraoctets) is the translation of "TB", not the English "To"
    left over; "Save settings" is still English."""
    pieces = check.english_pieces(
        [
            _Message("TB", "To"),
            _Message("To", "À"),
            _Message("Save settings", "Enregistrer les paramètres"),
        ]
    )
    html = '<html lang="fr"><p>5 <span>To</span></p><p>Save settings</p></html>'
    found = check.offences("p", html, language="fr", pieces=pieces, data=[])
    assert [(o.kind, o.text) for o in found] == [("catalogue", "Save settings")]


def test_detector_reads_a_fragment_language_from_its_root():
    """An htmx fragment has no <html>: its outermost element's lang counts."""
    fragment = '<section lang="fr"><p>Bonjour</p></section>'
    assert check.offences("f", fragment, language="fr", pieces=set(), data=[]) == []
    found = check.offences(
        "f", "<section><p>Bonjour</p></section>", language="fr", pieces=set(), data=[]
    )
    assert [o.kind for o in found] == ["lang"]


def test_detector_flags_the_wrong_page_language():
    found = check.offences(
        "p",
        '<html lang="en-gb"><p>Hallo</p></html>',
        language="fr",
        pieces=set(),
        data=[],
    )
    assert [o.kind for o in found] == ["lang"]


def test_a_name_kept_in_every_language_is_not_english_left_over():
    """A call's name (a msgid translated to itself) inside a French sentence, or
    alone, is not flagged; the same words without the name in the catalogue are."""
    catalogue = [
        _Message("AI for Science and Collaborative EU Projects", "AI for Science and "
                 "Collaborative EU Projects"),
        _Message("Save", "Enregistrer"),
    ]  # fmt: skip
    names = check.proper_names(catalogue)
    assert names == {"AI for Science and Collaborative EU Projects"}
    html = (
        '<html lang="fr"><body><p>AI for Science and Collaborative EU Projects</p>'
        "<p>Les organisations publiques postulent à AI for Science and "
        "Collaborative EU Projects.</p></body></html>"
    )
    pieces = check.english_pieces(catalogue)
    assert (
        check.offences("p", html, language="fr", pieces=pieces, data=[], names=names)
        == []
    )
    found = check.offences("p", html, language="fr", pieces=pieces, data=[])
    assert [o.kind for o in found] == ["english"]
