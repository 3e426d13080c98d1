"""Serving a class: the heavy-run queue and its job process (jobs), the run store the workers
share (runs), the SQLite conventions of the shared stores (sqlite_file), the rerun limit
(guard) and what a server process sets up once (process)."""
