"""Hypothesis profiles for every property test.

- `default`: quick, for working on the code (`make test`, `pytest tests`);
- `ci`: thorough, five times the examples: `HYPOTHESIS_PROFILE=ci pytest tests`.

No test sets its own example count: how hard to search is the run's choice,
not the test's. No deadline: the machine is shared, and speed is measured in
`benchmarks/`, never asserted here.
"""

import os

from hypothesis import HealthCheck, settings

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("default", max_examples=200, deadline=None, suppress_health_check=QUIET)
settings.register_profile("ci", max_examples=1000, deadline=None, suppress_health_check=QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
