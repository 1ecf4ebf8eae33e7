"""Run every benchmark side by side and rewrite its section of BENCHMARKS.md.

    python -m bench [--quick]          # what `nox -s bench` / `make bench` run
"""

from __future__ import annotations

import argparse
import sys

import torch

from bench import (
    bad_node,
    check_allreduce,
    container_overhead,
    control_plane,
    diagnose_corpus,
    fsdp,
    gpu_train,
    jobscripts_scale,
    kill_resume,
    restart_reads,
    snapshot_blocking,
    time_to_train,
    trainer_throughput,
    watchdog_scale,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run, noisier figures)")
    args = parser.parse_args(argv)
    repeats = ["--repeats", "2" if args.quick else "5"]
    markdown = ["--markdown", "BENCHMARKS.md"]
    status = trainer_throughput.main([*repeats, *markdown])
    # A repeat takes seconds, and 5 of them swing the ratio by +-15% on a shared 2-core machine: take 15.
    status |= check_allreduce.main(["--repeats", "2" if args.quick else "15", *markdown])
    status |= snapshot_blocking.main([*repeats, *markdown])
    status |= fsdp.main(["--repeats", "2" if args.quick else "3", *markdown])
    status |= kill_resume.main(["--repeats", "2" if args.quick else "3", *markdown])
    status |= watchdog_scale.main(markdown)
    # Bytes a restart reads from the run directory, 1 2 4 ranks (`--against REV...` adds earlier trees beside it)
    status |= restart_reads.main(markdown)
    # The control plane's phases and fault verdicts in a simulated world of N ranks; 4096 ranks fit 2 cores only
    # without the check's phase, with a 3 s beat and 128 ranks a process (bench/control_plane.py), so they run
    # apart (minutes).
    status |= control_plane.main(["--ranks", "256", "1024", *markdown])
    if not args.quick:
        status |= control_plane.main(["--ranks", "4096", "--ranks-per-process", "128", "--no-check", "--deadline", "30",
                                      "--interval", "3", "--markdown", "BENCHMARKS.md",
                                      "--section", "bench.control_plane.4096"])
    status |= time_to_train.main(markdown)  # the --dry-run failure model over 64..2048 nodes (no measurement)
    status |= jobscripts_scale.main([*repeats, *markdown])  # the job scripts' functions at 1024 nodes
    status |= container_overhead.main([*repeats, *markdown])  # as root, with the smoke image
    status |= diagnose_corpus.main(markdown)  # app.diagnose on the corpus of real users' logs (seconds)
    status |= bad_node.main(["--repeats", "1" if args.quick else "2", *markdown])  # as root, with Slurm
    if torch.cuda.is_available():  # the GPU section is measured where there is one (its commands say which)
        status |= gpu_train.main(["--runs", "gpt2:16", "gpt2-medium:16", "--pairs", "1" if args.quick else "2",
                                  "--steps", "25", *markdown])
    return status


if __name__ == "__main__":
    sys.exit(main())
