"""Failure recognition: the provider error tree and the overflow classifiers (spec 19.10)."""
