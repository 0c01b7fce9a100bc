"""Writing a proposal together: how long a person counts as present, how often
their presence is noted, and who wrote what nobody stamped."""

# Seen within this long (a page load or an autosave): shown as present.
PRESENCE_WINDOW_SECONDS = 120
# A presence on the same step is noted again after this long, not at every
# autosave (one write per person and proposal at most this often).
PRESENCE_REFRESH_SECONDS = 20
# The key of the field stamp that says who wrote what nobody stamped: the owner
# when the first stamps were written (the proposal was theirs alone until then).
BEFORE_TEAM = "*"
