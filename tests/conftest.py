"""Hypothesis profiles: a fast default for developers, a thorough one for CI.

Select with HYPOTHESIS_PROFILE=ci (``.ci/run`` does).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
