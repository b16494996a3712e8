"""Serving a fake: the ASGI app, its mounts, answers, faults and request log."""
