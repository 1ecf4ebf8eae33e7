"""tests/host/launch/fork_server.py: a run of the job's parts forked from the server is what a new interpreter gives,
exit code, log, errors, records and the environment left for the steps alike (only what each run draws anew, the
store's secret and the clock in the log, may differ)."""

from __future__ import annotations

import re
import sys

import pytest

from tests.host.launch.job_parts import Ran, base_env, fork_server, job_parts

#: A fixed port: the job picks a free one at random otherwise
PORT = {"RDZV_PORT": "29500"}


def comparable(ran: Ran) -> tuple:
    clock = re.compile(r"^\[\d\d:\d\d:\d\d ", re.MULTILINE)
    found = dict(ran.found, env={k: v for k, v in ran.found.get("env", {}).items() if k != "DDP_STORE_SECRET"})
    return ran.returncode, clock.sub("[", ran.stdout), clock.sub("[", ran.stderr), found


@pytest.mark.parametrize(("parts", "env", "returncode"), [
    (["fabric", "launch"], PORT, 0),
    (["fabric"], {**PORT, "FABRIC": "socket"}, 2),  # a bad setting: its one line, exit 2
    (["nonesuch"], PORT, 1),  # SystemExit with a message, as the interpreter ends it
])
def test_a_forked_run_is_what_a_new_interpreter_gives(parts: list[str], env: dict[str, str], returncode: int) -> None:
    assert fork_server().serves(sys.executable, {**base_env(), **env})
    forked, fresh = job_parts(parts, env), job_parts(parts, env, fresh=True)
    assert forked.returncode == returncode, forked.stderr
    assert comparable(forked) == comparable(fresh)
    assert forked.found["env"]["DDP_STORE_SECRET"] != fresh.found["env"]["DDP_STORE_SECRET"]


def test_what_only_an_interpreters_start_reads_gets_a_new_interpreter() -> None:
    assert fork_server().serves(sys.executable, base_env())
    assert not fork_server().serves(sys.executable, {**base_env(), "PYTHONPATH": "/elsewhere"})
    assert not fork_server().serves(sys.executable, {**base_env(), "LC_ALL": "C"})
    assert not fork_server().serves("python3.6", base_env())
