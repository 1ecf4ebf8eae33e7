"""How often to snapshot, and how long a job of N nodes takes to train when nodes fail: `--dry-run`'s last lines.

At 1024 nodes the rare event is the normal one: Meta's Llama 3 run had 419 unexpected interruptions in 54 days
on 16,384 H100s (Dubey et al. 2024, "The Llama 3 Herd of Models", section 3.3.4), about one per 50,700
GPU-hours; with 4 GPUs a node that is one per 12,700 node-hours, and a job of 1024 nodes fails every 12 hours.

- The interval: a snapshot every T seconds costs C seconds of training each, and a failure loses on average
  T/2 of work plus the restart R. Young (1974, "A first order approximation to the optimum checkpoint
  interval", CACM 17(9)) minimises that at T = sqrt(2 C M) for a job's mean time between failures M; Daly
  (2006, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3))
  refines it for C not much smaller than M, which is what `snapshot_interval_s` returns.
- The time to train: the work W (steps x step time) and its snapshots, stretched by the failures: each one
  costs R plus the work since the last snapshot, (T + C) / 2 on average, and they come at a rate 1/M of the
  wall-clock time (Daly's first-order model): wall = W (1 + C/T) / (1 - (R + (T + C)/2) / M).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Llama 3's rate (see the module's docstring): 419 interruptions / (54 days x 24 h x 16,384 GPUs).
GPU_HOURS_PER_FAILURE = 54 * 24 * 16384 / 419
#: GPUs in a node at every site this project targets (MareNostrum 5 ACC: 4 H100; GH200 systems: 4 GH200).
GPUS_PER_NODE = 4
#: A node's mean time between failures by Llama 3's rate, in hours (~12,700).
NODE_MTBF_H = GPU_HOURS_PER_FAILURE / GPUS_PER_NODE


@dataclass(frozen=True)
class Restart:
    """What one failure costs besides the lost work, in seconds, term by term."""

    detect_s: float  # until the job stops: the hang watchdog's deadline (a dead node's collective hangs)
    requeue_s: float  # until the scheduler starts the job again
    start_s: float  # image, rendezvous, NCCL init, snapshot read, until training resumes

    @property
    def total_s(self) -> float:
        return self.detect_s + self.requeue_s + self.start_s


def job_mtbf_s(nodes: int, node_mtbf_h: float = NODE_MTBF_H) -> float:
    """Mean seconds between failures of a job on `nodes` nodes that fail independently."""
    return node_mtbf_h * 3600 / nodes


def snapshot_interval_s(snapshot_s: float, mtbf_s: float) -> float:
    """Daly's optimum seconds between snapshots that each cost `snapshot_s`, for a job's MTBF `mtbf_s`
    (Young's sqrt(2 C M), corrected to higher order; M itself once a snapshot costs half the MTBF or more)."""
    if snapshot_s <= 0:
        return 0.0  # a free snapshot: as often as possible
    if snapshot_s >= 2 * mtbf_s:
        return mtbf_s
    ratio = snapshot_s / (2 * mtbf_s)
    return math.sqrt(2 * snapshot_s * mtbf_s) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - snapshot_s


def time_to_train_s(work_s: float, interval_s: float, snapshot_s: float, restart_s: float,
                    mtbf_s: float) -> float:
    """Expected wall-clock seconds for `work_s` of training with a snapshot every `interval_s` of work; inf
    when failures come faster than the job can get past them."""
    if interval_s <= 0:
        return math.inf
    lost_per_failure = restart_s + (interval_s + snapshot_s) / 2
    if lost_per_failure >= mtbf_s:
        return math.inf
    return work_s * (1 + snapshot_s / interval_s) / (1 - lost_per_failure / mtbf_s)


def expected_failures(wall_s: float, mtbf_s: float) -> float:
    return wall_s / mtbf_s
