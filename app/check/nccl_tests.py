"""NVIDIA nccl-tests' `all_reduce_perf`, when the image carries it: run on rank 0's node over the check's
sizes (one process, `-g` GPUs) and read its out-of-place busbw, to print beside the check's numbers."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from app.check.report import OK, WARN, Check


def parse_busbw(output: str) -> dict[int, float]:
    """size -> out-of-place busbw (GB/s) from nccl-tests' table rows:
    `size count type redop root time algbw busbw #wrong time algbw busbw #wrong`."""
    result = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) >= 9 and fields[0].isdigit() and fields[1].isdigit():
            try:
                result[int(fields[0])] = float(fields[7])
            except ValueError:
                continue
    return result


def side_by_side(ours: dict[int, float], theirs: dict[int, float], title: str) -> str:
    """A small table: per size both busbw figures (sizes both measured)."""
    lines = [f"{'size(B)':>12} {'app.check':>10} {'nccl-tests':>10}  all_reduce busbw GB/s ({title})"]
    lines += [f"{size:>12} {ours[size]:>10.2f} {theirs[size]:>10.2f}" for size in sorted(ours) if size in theirs]
    return "\n".join(lines)


def run_all_reduce_perf(sizes: Sequence[int], gpus: int, timeout_s: float) -> tuple[Check, dict[int, float]]:
    name = "nccl-tests: all_reduce_perf"
    exe = shutil.which("all_reduce_perf")
    if exe is None:
        return Check(name, OK, "all_reduce_perf not on PATH: not run", stage="bandwidth"), {}
    if gpus < 1:
        return Check(name, OK, "no GPU on rank 0's node: not run", stage="bandwidth"), {}
    # -f 2 with -b/-e spanning our sizes visits every power of two between them, ours included.
    cmd = [exe, "-b", str(min(sizes)), "-e", str(max(sizes)), "-f", "2", "-g", str(gpus)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return Check(
            name,
            WARN,
            f"{' '.join(cmd)} did not finish in {timeout_s:.0f}s",
            "run it by hand to see where it hangs",
            stage="bandwidth",
        ), {}
    busbw = parse_busbw(out.stdout)
    if out.returncode != 0 or not busbw:
        return Check(
            name,
            WARN,
            f"{' '.join(cmd)} exited {out.returncode} without results",
            "run it by hand; see its output",
            stage="bandwidth",
        ), {}
    shown = ", ".join(f"{size}B {busbw[size]:.1f}" for size in sizes if size in busbw)
    return Check(name, OK, f"busbw GB/s on {gpus} GPUs of one node: {shown}", stage="bandwidth"), busbw
