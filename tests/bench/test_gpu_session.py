"""bench/gpu_session.sh's whole plan, dry (`--dry-run`: the CPU, the tiny model, no compilation): every part
runs its real commands, and what it leaves is easy to copy off a GPU node (at most 8 files of at most 16 MiB,
plain names, no deeper than two folders), and nothing outside --out and the checkout's build/.

The whole dry plan takes about 240 CPU seconds (190-280 s of a worker in CI, and under load its sharded part can
run out of its time): it proves developer tooling, not what a user runs, so it runs in `nox -s gpu_session_dry`
(APP_GPU_SESSION_DRY_RUN=1), which the GPU procedure runs before a session (bench/gpu_session.sh's header,
docs/development.md); `make test` keeps the cheap ones, the cap and the refusal."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.trainer_runs import REPO

pytestmark = pytest.mark.slow

#: The tests of the whole dry plan (the module's `session`)
whole_dry_plan = pytest.mark.skipif(os.environ.get("APP_GPU_SESSION_DRY_RUN") != "1",
                                    reason="the whole dry plan takes minutes: nox -s gpu_session_dry runs it")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu-session")
    env = {**os.environ, "PYTHON": sys.executable}
    # A compile cache in /tmp, as a shell (or a test worker) that trained before would pass on: the session keeps
    # its caches in its work all the same
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inherited-compile-cache"))
    # One pairs case and a budget that no loaded CI machine runs out of: the plumbing, not the timing, is tested
    result = subprocess.run(["bash", "bench/gpu_session.sh", "--dry-run", "--out", str(out), "--pairs", "gpt2:16",
                             "--budget", "1200"], cwd=REPO, env=env, capture_output=True, text=True, timeout=1300,
                            check=False)
    return out, result


@whole_dry_plan
def test_the_dry_run_ends_cleanly_and_leaves_what_comes_back(session):
    out, result = session
    assert result.returncode == 0, result.stderr[-3000:]
    files = sorted(p.name for p in out.rglob("*") if p.is_file())
    assert files == ["profile-app.trace.json.gz", "profile-fsdp.trace.json.gz", "profile-hand.trace.json.gz",
                     "profile.txt", "results.jsonl", "session-machine.txt", "session-runs.tgz", "session.log"]
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", name) for name in files)
    assert all((out / name).stat().st_size <= 16 * 2**20 for name in files)


@whole_dry_plan
def test_every_part_of_the_plan_ran_in_order_and_exited_zero(session):
    out, _ = session
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    parts = [(r["part"], r["exit"]) for r in results if "exit" in r]
    assert parts == [("pairs", 0), ("mfu", 0), ("sharded", 0), ("multirank", 0), ("profile", 0)]
    assert all(r["dry_run"] for r in results)
    pairs = [r["who"] for r in results if r["part"] == "pairs" and "exit" not in r]
    assert pairs == ["hand-plain", "app-model"]
    sharded = [(r["who"], r["gathering"], r["ranks"], r["ratio"] is not None)
               for r in results if r["part"] == "sharded" and "exit" not in r]
    assert sharded == [("ddp", None, 1, False), ("fsdp", "once", 1, True), ("ddp", None, 2, False),
                       ("fsdp", "once", 2, True), ("fsdp", "per-micro-batch", 1, True),
                       ("fsdp", "per-micro-batch", 2, True)]
    assert all(r["ratio"] > 0 for r in results if r["part"] == "pairs" and r.get("who", "hand-plain") != "hand-plain")
    (mfu,) = [r for r in results if r["part"] == "mfu" and "exit" not in r]
    assert mfu["tokens_per_s"] > 0 and mfu["activation_checkpointing"] is False


@whole_dry_plan
def test_the_profile_records_a_step_of_each_kind_of_miss_and_keeps_the_traces(session):
    out, _ = session  # the dry run takes every case for a miss
    text = (out / "profile.txt").read_text()
    assert text.startswith("app.train against hand loop plain, one optimizer step each")
    assert "app.train: one optimizer step" in text and "hand loop plain: one optimizer step" in text
    assert text.count("app.train: one optimizer step") == 2  # the pairs case's and the fsdp one's
    for who in ("app", "hand", "fsdp"):
        with gzip.open(out / f"profile-{who}.trace.json.gz") as trace:
            assert any(e.get("name", "").startswith("ProfilerStep") for e in json.load(trace)["traceEvents"])


@whole_dry_plan
def test_the_multirank_node_ids_name_real_tests(session):
    out, _ = session
    log = (out / "session.log").read_text()
    assert "2 tests collected" in log, log[-3000:]


@whole_dry_plan
def test_the_work_goes_to_the_checkouts_build_folder_and_is_removed(session):
    out, _ = session
    log = (out / "session.log").read_text()
    work = Path(re.search(r"^work: (.+)$", log, re.M).group(1))
    assert work.parent == REPO / "build" and not work.exists()
    assert "/tmp/" not in log.replace(str(out), "OUT").replace(str(REPO), "REPO")  # the checkout may be in /tmp


def processes_with(variable: str) -> list[int]:
    """The live processes whose environment holds this exact `NAME=value`."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if variable.encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def test_a_part_past_its_cap_is_ended_with_all_it_started_and_the_next_part_runs(tmp_path):
    # Three cases of four runs each, every run a process of its own: about 24 s on an idle 2-core machine, so 14 s
    # always cuts the part, and even on a loaded machine its first child (torch imported twice) has started by then
    env = {**os.environ, "PYTHON": sys.executable, "SESSION_MARK": str(tmp_path)}
    script = subprocess.Popen(["bash", "bench/gpu_session.sh", "--dry-run", "--out", str(tmp_path), "--pairs",
                               "gpt2:16 gpt2:16 gpt2:16", "pairs:14", "multirank"], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen: set[int] = set()
    while script.poll() is None:  # the session's processes, the hand loops that bench.gpu_train starts among them
        seen.update(processes_with(f"SESSION_MARK={tmp_path}"))
        time.sleep(0.2)
    output = script.stdout.read()
    assert script.returncode == 0, output[-3000:]
    parts = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(p["part"], p["exit"]) for p in parts if "exit" in p] == [("pairs", 124), ("multirank", 0)]
    assert "== pairs: exit 124 after" in output and "(its time ran out)" in output
    assert len(seen) > 3, seen  # bash, timeout, bench.gpu_train and its child at least
    # Nothing left behind: timeout sends SIGKILL 15 s after SIGTERM (-k 15) to what ignored it, so wait that long
    deadline = time.monotonic() + 30
    while processes_with(f"SESSION_MARK={tmp_path}") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert processes_with(f"SESSION_MARK={tmp_path}") == []


def test_an_unknown_part_is_refused_before_anything_runs(tmp_path):
    env = {**os.environ, "PYTHON": sys.executable}
    result = subprocess.run(["bash", "bench/gpu_session.sh", "--dry-run", "--out", str(tmp_path), "profile", "scale"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert "unknown part 'scale' (parts: pairs, mfu, sharded, multirank, profile," in result.stderr
    assert not (tmp_path / "session.log").exists()
