"""The explorer's shared layers (the pages themselves are in views/; the map is docs/architecture.md).

- ``i18n``: the string catalogue and ``t(key)``; the interface's shared words.
- ``compute``: the cached probcore calls several pages share; ``training``: the small training
  demo (run in the job process).
- ``session``: every control, its URL state and parsing (``state``), the typed session keys.
- ``serving``: the heavy-run queue (``jobs``), the shared run store (``runs``), SQLite files, the
  rerun limit (``guard``).
- ``drawing``: colours, the figure helpers pages share, the plain figure, the page furniture (``ui``).
- ``classroom``: lessons, the lesson bar, live rooms.
"""
