"""The wizard's machinery, below the views (``proposals/views/wizard.py``), by idea:

- ``steps``: the steps and their forms, each derived from its layout;
- ``changes``: a POST as changes against what the page showed (its bases);
- ``stale``: another tab's newer values in the inputs a page shows;
- ``progress``: how far along the applicant is, step by step;
- ``regions``: the page's live parts, with keys derived from their inputs;
- ``page``: the ``Page`` the step's templates read;
- ``questions``: the conflict and row questions a save asks;
- ``saving``: a step's POST read and saved (``save_step``, ``Saved``).
"""
