"""The jobs at 1024 nodes, timed: hostlists, the launcher check, exclude lists, history.jsonl, whole jobs.

The Slurm and PBS jobs (jobscripts/mn5.sh and gh200-pbs.sh, or one part of the program they start,
app/host/launch/job.py) run for real, in a generated Slurm or PBS environment of N nodes with stand-ins for the
scheduler's commands (bench/job_world.py says how each behaves; the tests in
tests/jobscripts/test_jobscripts_scale.py run the same calls).

Timed inside the job's process (the job's python3: after its imports; a whole job: the whole `bash mn5.sh` or
`bash gh200-pbs.sh`), median of --repeats runs:

    python -m bench.jobscripts_scale [--nodes 1024] [--repeats 5] [--markdown BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.job_world import (
    Run,
    World,
    bad_node_requeue,
    check_launcher,
    check_launcher_pbs,
    cray_nids,
    history_event,
    make_world,
    marenostrum5,
    pbs_env,
    pbs_gh200,
    pbs_nodes_seen,
    requeues_in_a_row,
    run_job_part,
    slurm_env,
    slurm_nodes_seen,
    srun_per_node,
    whole_job,
    write_history,
)
from bench.markdown import publish

# ------------------------------------------------------------------------------------------- bench


#: A function's budget; a whole job (three launches) gets WHOLE_JOB_S
FUNCTION_S, WHOLE_JOB_S = 1.0, 5.0


def _time(label: str, cost: str, repeats: int, once: Callable[[], float],
          budget_s: float = FUNCTION_S) -> tuple[str, str, list[float], float]:
    return label, cost, [once() for _ in range(repeats)], budget_s


def measure(world: World, nodes: int, repeats: int,
            history_attempts: int) -> list[tuple[str, str, list[float], float]]:
    rows = []
    cray, mn5, pbs = cray_nids(nodes), marenostrum5(nodes), pbs_gh200(nodes)

    def seconds(run: Run, ok: int = 0) -> float:
        if run.returncode != ok:
            raise RuntimeError(f"exit {run.returncode}, wanted {ok}: {run.stderr[-2000:]}")
        return run.seconds

    rows.append(_time("Slurm job's start (`Job.start`): `scontrol show hostnames` (real client), head node, "
                      "defaults (MareNostrum 5 names)", "one `scontrol`", repeats,
                      lambda: seconds(slurm_nodes_seen(world, mn5)[0])))
    rows.append(_time("PBS job's start (`Job.start`): node file (4 lines a node), head node, defaults",
                      "one read of the file", repeats, lambda: seconds(pbs_nodes_seen(world, pbs)[0])))
    rows.append(_time("Slurm job's launch check through `srun`, every node answers (stand-in included)",
                      "one launch; O(N) in Python", repeats, lambda: seconds(check_launcher(world, cray))))
    rows.append(_time("Slurm job's launch check, one node missing: named in the error",
                      "as above", repeats,
                      lambda: seconds(check_launcher(world, cray, skip=[cray.nodes[517]]), ok=2)))
    rows.append(_time("PBS job's launch check through PALS `mpiexec` (FQDN node file)",
                      "one launch; O(N) in Python", repeats, lambda: seconds(check_launcher_pbs(world, pbs))))
    launcher_alone = world.env(**slurm_env(cray, world.root))
    rows.append(_time("(the `srun` stand-in alone, included above)", "", repeats, lambda: _timed_process(
        ["srun", *srun_per_node(nodes).split()[1:], "/bin/sh", "-c", "echo $0 $(uname -n)", "x"],
        launcher_alone)))
    rows.append(_time("Slurm job's whole plan (allocation to srun lines, rendezvous) and torchrun's line", "O(N)",
                      repeats, lambda: seconds(run_job_part(world, "run = JobRun(job, plan(job, []))\n"
                                                                   "run.program('4242', ['-m', 'app.train'])",
                                                            world.env(**slurm_env(cray, world.root))))))
    hosts = cray.nodes
    write_history(world.root / "run", hosts, history_attempts, 2)
    size = (world.root / "run" / "history.jsonl").stat().st_size
    rows.append(_time(f"history's requeues in a row, history.jsonl of {2 * history_attempts} lines "
                      f"({size / 1e6:.0f} MB: every line names {nodes} hosts)",
                      "O(file size)", repeats, lambda: seconds(run_job_part(
                          world, requeues_in_a_row(), world.env(RUN_DIR=str(world.root / "run"))))))
    event_env = world.env(**pbs_env(pbs, world.root), RUN_DIR=str(world.root / "run"))
    names_kb = sum(len(n) + 1 for n in pbs.nodes) / 1e3
    rows.append(_time(f"a history.jsonl event naming the PBS job's {nodes} FQDNs ({names_kb:.0f} KB)", "O(N)",
                      repeats, lambda: seconds(run_job_part(world, history_event(pbs.nodes[5]), event_env, "pbs"))))
    bad = [cray.nodes[3], cray.nodes[517], cray.nodes[1000]]
    rows.append(_time(f"Slurm job's requeue without its bad nodes: 3 bad of {nodes}, history of "
                      f"{2 * history_attempts} lines", "1 python3, 4 scontrol", repeats,
                      lambda: (write_history(world.root / "run", hosts, history_attempts, 1),
                               seconds(bad_node_requeue(world, cray, bad, "nid[001100-001101]"), ok=75))[1]))
    rows.append(_time("`mn5.sh`, the whole Slurm job: check, preflight and workload steps (launched by the "
                      "stand-in, not run)", "3 launches", repeats, lambda: seconds(whole_job(world, cray)),
                      WHOLE_JOB_S))
    rows.append(_time("`mn5.sh` with LAUNCH=srun, `4(x1024)`: 4096 tasks", "3 launches", repeats,
                      lambda: seconds(whole_job(world, cray, "slurm", LAUNCH="srun", TASKS_PER_NODE="4")),
                      WHOLE_JOB_S))
    rows.append(_time("`gh200-pbs.sh`, the whole PBS job (PALS `mpiexec`)", "3 launches", repeats,
                      lambda: seconds(whole_job(world, pbs, "pbs")), WHOLE_JOB_S))
    return rows


def _timed_process(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--history-attempts", type=int, default=500,
                        help="attempts (each followed by a requeue) in the long history.jsonl")
    parser.add_argument("--markdown", help="rewrite this benchmark's section of this file")
    args = parser.parse_args(argv)
    if not shutil.which("bash"):
        print("bash not found: nothing to measure")
        return 1
    with tempfile.TemporaryDirectory(prefix="jobscripts-scale-") as tmp:
        world = make_world(Path(tmp))
        rows = measure(world, args.nodes, args.repeats, args.history_attempts)
    table = [f"| {label} | {cost} | {statistics.median(t) * 1e3:.0f} | {max(t) * 1e3:.0f} |"
             for label, cost, t, _ in rows]
    slow = [label for label, _, t, budget_s in rows if statistics.median(t) >= budget_s]
    command = (f"python -m bench.jobscripts_scale --nodes {args.nodes} --repeats {args.repeats} "
               f"--history-attempts {args.history_attempts}")
    body = "\n".join([
        f"## Job scripts at {args.nodes} nodes (the Slurm and PBS jobs, stand-in launchers)",
        "",
        f"Command: `{command}` ({platform.machine()}, {os.cpu_count()} CPUs, bash "
        f"{subprocess.run(['bash', '-c', 'echo $BASH_VERSION'], capture_output=True, text=True).stdout.strip()}; "
        "the jobs' parts timed inside the job's python3 after its imports, a whole job as all of `bash mn5.sh` or "
        "`bash gh200-pbs.sh`; `scontrol show hostnames` is "
        f"the real Slurm client{'' if world.real_scontrol else ' (absent here: parse_hostlist stood in)'}; "
        "`srun`/`mpiexec` are stand-ins that print what every node's task would, in no particular order, with "
        "srun's stderr notices). Tests: tests/jobscripts/test_jobscripts_scale.py.",
        "",
        "| function | cost grows as | median (ms) | max (ms) |",
        "|---|---|---:|---:|",
        *table,
        "",
        f"Every function stays under {FUNCTION_S:.0f} s at this size, a whole job's plan under {WHOLE_JOB_S:.0f} s "
        "(one python3 each)." if not slow else
        f"Over budget: {'; '.join(slow)}.",
        "The real launcher's own start of 1024 tasks (srun step creation, PALS) is not in these figures: it comes "
        "on top of the launcher check's and of each step's time.",
        "",
        "What holds at this size (tests/jobscripts/test_jobscripts_scale.py shows each):",
        "",
        "- The launcher check's error names the nodes with no process or two (16 at most, then a count: 0.6 KB), "
        "not the 1023 that answered; its log line on success gives the count from 17 nodes on.",
        "- LAUNCH=srun in a job submitted as `--ntasks-per-node=4 --cpus-per-task=20` (SLURM_TASKS_PER_NODE="
        "`4(x1024)`) shares out SLURM_CPUS_ON_NODE: each of the 4096 tasks gets its 20 CPUs, not 20 / 4.",
        "- A requeue's history event names all of the job's nodes: 4096 FQDNs of 35 characters are 143 KB, written "
        "by the job's own python3, never one argument of a command (Linux caps one at 128 KiB, MAX_ARG_STRLEN).",
    ])
    publish(body, Path(args.markdown) if args.markdown else None, "bench.jobscripts_scale")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
