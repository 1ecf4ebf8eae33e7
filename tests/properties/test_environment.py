"""The fabric policy's read-back of the environment (app/common/fabric_env.py) with any exported value, bytes
that are not UTF-8 included (Python holds them as surrogate escapes): every value not the policy's comes back
as it was given."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from app.common.fabric_env import apply_fabric_policy
from tests.bounded import within
from tests.properties.strategies import SECONDS_PER_EXAMPLE

names = st.from_regex(r"\A[A-Z_][A-Z0-9_]{0,12}\Z").filter(lambda name: not name.startswith(("NCCL_", "FI_", "APP_",
                                                                                             "LD_")))
values = st.binary(max_size=40).map(lambda data: os.fsdecode(data.replace(b"\0", b"")))


@given(st.dictionaries(names, values, max_size=4))
def test_any_exported_value_passes_through_the_policy_unchanged(exported):
    environ = {**exported, "PATH": "/usr/bin:/bin"}
    given_environ = dict(environ)
    with within(SECONDS_PER_EXAMPLE):
        result = apply_fabric_policy(environ)
    assert result is not None
    assert {name: environ[name] for name in given_environ} == given_environ
