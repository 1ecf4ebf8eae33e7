"""Benchmark: a worker SIGKILLed under `torchrun --max-restarts`, to the first step of the resumed run.

    python -m bench.kill_resume [--repeats 3] [--markdown BENCHMARKS.md]

2 ranks on CPU (gloo), the demo config, a snapshot every 20 steps, a metrics line flushed every step.
Once step 45 is on record, one worker gets SIGKILL; torchrun stops the other, starts both again, they
load the step-40 snapshot and train on. The figure is the time from the kill to the first metrics line
of the new attempt (history.jsonl says where it started). Target: <= 20 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from bench.markdown import publish

REPO = Path(__file__).resolve().parents[1]
KILL_AT_STEP = 45
TIMEOUT_S = 300


def json_lines(path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):  # a line being written
        return []


def _wait_for(condition, what: str) -> None:
    end = time.monotonic() + TIMEOUT_S
    while not condition():
        if time.monotonic() > end:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.02)


def one_kill(run_dir: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
               "--max-restarts=1", "-m", "app.train", "--config", "demo", f"run.dir={run_dir}", "train.max_steps=120",
               "snapshot.every=20", "run.log_every=1", "run.progress=lines"]
    agent = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        metrics, history = run_dir / "metrics.jsonl", run_dir / "history.jsonl"
        _wait_for(lambda: any(r["step"] >= KILL_AT_STEP for r in json_lines(metrics)), f"step {KILL_AT_STEP}")
        workers = subprocess.run(["pgrep", "-P", str(agent.pid)], capture_output=True, text=True).stdout.split()
        killed = time.monotonic()
        os.kill(int(workers[-1]), signal.SIGKILL)

        def resumed() -> bool:
            attempts = json_lines(history)
            return len(attempts) >= 2 and any(r["step"] == attempts[-1]["start_step"] + 1 for r in json_lines(metrics))

        _wait_for(resumed, "the first resumed step")
        seconds = time.monotonic() - killed
        if agent.wait(timeout=TIMEOUT_S) != 0:
            raise RuntimeError("the restarted run did not complete")
        return seconds
    finally:
        if agent.poll() is None:
            agent.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(args.repeats):
            times.append(one_kill(Path(tmp) / f"run-{index}"))
            print(f"  {index}: {times[-1]:.1f} s from SIGKILL to the first resumed step", flush=True)
    text = "\n".join([
        "## A killed worker, to training resumed",
        "",
        f"Command: `python -m bench.kill_resume --repeats {args.repeats}` ({platform.machine()}, {os.cpu_count()} "
        f"CPUs, torch {torch.__version__}; `torchrun --max-restarts=1`, 2 ranks, gloo, demo config, a snapshot every "
        f"20 steps, SIGKILL to one worker at step {KILL_AT_STEP}).",
        "",
        f"From SIGKILL to the first metrics line of the restarted run: median **{statistics.median(times):.1f} s** "
        f"(target <= 20 s); runs " + ", ".join(f"{t:.1f}" for t in times) + " s. It includes torchrun noticing the "
        "death, stopping the other worker, the new rendezvous, two interpreter and torch start-ups, loading the "
        "snapshot and one step.",
    ])
    publish(text, args.markdown, "bench.kill_resume")
    return 0


if __name__ == "__main__":
    sys.exit(main())
