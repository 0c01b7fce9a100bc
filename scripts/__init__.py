"""The project's scripts, run from the project root (``python -m scripts.loadtest``)."""
