"""The wizard's machinery, below the views (``proposals/views/wizard.py``), by idea:

- ``steps``: the steps and their forms, each derived from its layout;
- ``changes``: what a page showed (its bases) and a POST as changes against them;
- ``stale``: another tab's newer values in the inputs a page shows;
- ``progress``: how far along the applicant is, step by step;
- ``regions``: the page's live parts, with keys derived from their inputs;
- ``page``: the ``Page`` the step's templates read, and the pages a request
  answers with (built from plain values: the view reads the request once);
- ``questions``: the conflict and row questions a save asks;
- ``saving``: a step's POST read and saved (``save_step``, ``Saved``).
"""
