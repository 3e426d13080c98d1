"""Serving a class: N explorer workers behind HAProxy (serve/cluster.py, serve/haproxy.cfg)."""
