"""Hypothesis profiles for the property-based suite: `ci` (the default: a few dozen examples a property, so the
whole suite takes seconds) and `fuzz` (thousands, `nox -s fuzz`), chosen by APP_HYPOTHESIS_PROFILE.

Every property also runs each example under a hard time bound (tests/bounded.py): a reader that blocks on a
FIFO or reads a device forever fails the example instead of hanging the suite. Hypothesis' own deadline is off:
on a shared two-core machine a slow example is noise, a hang is the failure that matters."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE_VARIABLE = "APP_HYPOTHESIS_PROFILE"
COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}

settings.register_profile("ci", max_examples=30, **COMMON)
settings.register_profile("fuzz", max_examples=2000, **COMMON)
settings.load_profile(os.environ.get(PROFILE_VARIABLE, "ci"))
