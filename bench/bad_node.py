"""Benchmark: a node that freezes mid-training, to training resumed without it (Slurm test cluster).

    python -m bench.bad_node [--repeats 1] [--hang-timeout 8] [--markdown BENCHMARKS.md]

Needs root and the packages of tests/provision/provision-slurm.sh: it brings up the three-node test
cluster (tests/slurm/up.sh) and tears it down after. `sbatch -N2 jobscripts/slurm.sh train` (regression
workload, 2 CPU ranks per node, host torchrun, a snapshot every 100 steps); both ranks of node2 freeze
(SIGSTOP) at step 300. The job names the hang, leaves node2 out, requeues and resumes on node1 + node3.
The figure runs from the last step before the freeze to the first step of the resumed run, and is split
by the job's own records: the hang deadline (`dist.hang_timeout_s`), the requeue (history.jsonl's event),
the new attempt's start (its history line, after Slurm's scheduling and the preflight) and its first step.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import torch

from bench.kill_resume import json_lines
from bench.markdown import publish
from bench.slurm_cluster import ClusterUnavailable, running_cluster

REPO = Path(__file__).resolve().parents[1]
FREEZE_AT_STEP = 300
TIMEOUT_S = 400


def one_job(cluster, hang_timeout_s: int) -> dict[str, float]:
    workdir = cluster.workdir()
    job_id = cluster.submit(workdir, "-N2", str(REPO / "jobscripts" / "slurm.sh"), "train", "train.epochs=40",
                            "snapshot.every=100", f"dist.hang_timeout_s={hang_timeout_s}",
                            env={"CONFIG": "regression", "GPUS_PER_NODE": "2", "IMAGE": "none",
                                 "APP_TRAIN_FAULT": f"stop@host=node2:step{FREEZE_AT_STEP}"})
    run_dir = workdir / "runs" / job_id
    metrics, history = run_dir / "metrics.jsonl", run_dir / "history.jsonl"
    end = time.monotonic() + TIMEOUT_S
    frozen = resumed = None
    while resumed is None and time.monotonic() < end:
        steps = [r["step"] for r in json_lines(metrics)]
        if frozen is None and FREEZE_AT_STEP - 1 in steps:
            frozen = time.time()
        attempts = [h for h in json_lines(history) if "attempt" in h]
        if frozen is not None and len(attempts) == 2 and attempts[1]["start_step"] + 1 in steps:
            resumed = time.time()
        time.sleep(0.05)
    job = cluster.wait(job_id, workdir, timeout_s=TIMEOUT_S)
    if resumed is None or job.state != "COMPLETED":
        raise RuntimeError(f"job {job_id} did not resume without node2 ({job.state}); see {job.log}")
    requeue = next(h for h in json_lines(history) if h.get("event") == "requeue")
    second = [h for h in json_lines(history) if "attempt" in h][1]
    requeued = datetime.strptime(requeue["time"], "%Y-%m-%dT%H:%M:%S%z").timestamp()
    # The batch script's own clock (HH:MM:SS) for when Slurm started it again, and the preflight's length
    log = job.output
    rerun = re.search(r"^\[(\d\d:\d\d:\d\d) slurm\.sh\] job \S+ on \S+, run #2", log, re.M)
    day = datetime.fromtimestamp(requeued).strftime("%Y-%m-%d ")
    restarted = datetime.strptime(day + rerun[1], "%Y-%m-%d %H:%M:%S").timestamp() if rerun else requeued
    preflight = re.findall(r"preflight passed in (\d+)s", log)
    return {"total": resumed - frozen, "requeued": requeued - frozen, "rerun": restarted - frozen,
            "preflight": float(preflight[-1]) if preflight else 0.0, "started": second["started_unix"] - frozen}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--hang-timeout", type=int, default=8, help="dist.hang_timeout_s of the job (s)")
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or shutil.which("slurmctld") is None:
        print("bench.bad_node: skipped (needs root and Slurm: bash tests/provision/provision-slurm.sh)")
        return 0
    os.environ["DDP_SLURM_TEST_IMAGE"] = "none"
    fixture = running_cluster(REPO)
    try:
        cluster = next(fixture)
    except ClusterUnavailable as unavailable:
        print(f"bench.bad_node: skipped ({unavailable})")
        return 0
    try:
        runs = []
        for index in range(args.repeats):
            runs.append(one_job(cluster, args.hang_timeout))
            print(f"  {index}: " + ", ".join(f"{k} {v:.1f} s" for k, v in runs[-1].items()), flush=True)
    finally:
        fixture.close()
    median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    text = "\n".join([
        "## A bad node, to training resumed without it (Slurm test cluster)",
        "",
        f"Command: `python -m bench.bad_node --repeats {args.repeats} --hang-timeout {args.hang_timeout}` (as root; "
        f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}; three Slurm nodes in network "
        "namespaces on this machine, `sbatch -N2 jobscripts/slurm.sh train`, regression workload, 2 ranks per "
        f"node, host torchrun, a snapshot every 100 steps, node2 frozen at step {FREEZE_AT_STEP}).",
        "",
        f"From the last step before the freeze to the first step of the run resumed on node1 + node3: median "
        f"**{median['total']:.1f} s**; runs " + ", ".join(f"{r['total']:.1f}" for r in runs) + " s. Of that, "
        f"{median['requeued']:.0f} s until the job had named the hang and requeued itself without node2 (the "
        f"deadline is {args.hang_timeout} s; its default is half of `dist.timeout_s`, 90 s), "
        f"{median['rerun'] - median['requeued']:.0f} s until Slurm started the requeued job (it holds a requeued "
        f"job pending, `Reason=BeginTime`), {median['preflight']:.0f} s of preflight, "
        f"{median['started'] - median['rerun'] - median['preflight']:.0f} s more until the trainer started (the "
        f"launch checks, the rendezvous, interpreter and torch start-up) and "
        f"{median['total'] - median['started']:.0f} s to load the snapshot and run the first step. Measured from "
        "the job's own records: history.jsonl, metrics.jsonl and the log's timestamps (whole seconds).",
    ])
    publish(text, args.markdown, "bench.bad_node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
