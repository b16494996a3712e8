"""Trimming benchmark: ``python -m bench`` (or ``make bench``); see bench/README.md."""
