"""The finished run in one file and one line: `summary.json` and the closing log line on rank 0."""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from app.common.atomic import write_text_atomic
from app.common.distributed import DistContext
from app.host.common.regular_files import read_regular
from app.train.loop import TrainResult
from app.train.metrics import format_rate, peak_memory_gib
from app.train.sharding import local_bytes, optimizer_tensors

log = logging.getLogger("app.train")

#: Dense bf16 peak FLOP/s per GPU (NVIDIA's datasheets: half the sparse figure), for model FLOPs utilisation.
#: Searched in this order in torch's device name, variants before their chip: the NVL and PCIe cards run
#: slower clocks and power than the SXM module ("NVIDIA H100 80GB HBM3" is an SXM one).
PEAK_BF16_FLOPS = {"GH200": 989e12, "H200 NVL": 835e12, "H200": 989e12, "H100 NVL": 835e12,
                   "H100 PCIE": 756e12, "H100": 989e12, "A100": 312e12}


def params_sha256(state: Mapping[str, torch.Tensor]) -> str:
    """One digest of every parameter and buffer of a full (unsharded) state dict, bit for bit: equal digests
    mean identical models, whichever strategy trained them."""
    digest = hashlib.sha256()
    for name, tensor in state.items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def write_summary(run_dir: Path, result: TrainResult, state: Mapping[str, torch.Tensor], ctx: DistContext,
                  tokens_per_sample: int, flops_per_token: float, memory: Mapping[str, Any]) -> dict[str, Any]:
    summary = {**build_summary(result, state, ctx, tokens_per_sample, flops_per_token), **memory}
    # allow_nan=False: NaN/Infinity are not JSON; a value that is not finite is written as null instead.
    write_text_atomic(run_dir / "summary.json", json.dumps(summary, indent=2, allow_nan=False) + "\n")
    _log_summary(summary, result)
    return summary


#: The hosts of the ranks a hang names, one a line: what the job scripts leave out of the next attempt
#: (the format of `python -m app.check --exclude-file`).
EXCLUDE_FILE = "nodes-to-exclude.txt"


def memory_report(model: torch.nn.Module, optimizer: torch.optim.Optimizer, device: torch.device) -> dict[str, Any]:
    """What this rank holds: parameter and optimizer-state bytes (its shards under fsdp), and its peak memory
    (CUDA allocator's high-water mark on GPU, the process's peak resident set on CPU)."""
    return {"param_bytes_per_rank": local_bytes(model.parameters()),
            "optimizer_bytes_per_rank": local_bytes(optimizer_tensors(optimizer)),
            "peak_memory_gib": peak_memory_gib(device)}


def _status_of(summary: Any) -> Any:
    """The status a summary.json holds; None when it holds something else (it is not the trainer's)."""
    return summary.get("status") if isinstance(summary, dict) else None


def write_hang_summary(run_dir: Path, line: str, ranks: list[int], hosts: list[str], step: int,
                       world_size: int, *, attempt_started: float) -> bool:
    """The summary of a run ended by a hang (app.common.watchdog): who held it up, and the last completed step.

    The first report of an attempt (started at `attempt_started`, epoch seconds) stands: a frozen rank
    that the scheduler wakes (SIGCONT before SIGTERM) during teardown finds the others gone and would
    blame them. Returns whether this one was written."""
    earlier = run_dir / "summary.json"
    try:
        this_attempts = earlier.stat().st_mtime >= attempt_started
        if this_attempts and _status_of(json.loads(read_regular(earlier, 1 << 20))) == "hung":
            return False
    except (OSError, ValueError, RecursionError):  # none, not a file, too large, not JSON (cut, not UTF-8), too deep
        pass
    summary = {"status": "hung", "step": step, "world_size": world_size,
               "hang": {"message": line, "ranks": ranks, "hosts": hosts}}
    write_text_atomic(run_dir / EXCLUDE_FILE, "".join(f"{host}\n" for host in hosts))
    write_text_atomic(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
    return True


def build_summary(result: TrainResult, state: Mapping[str, torch.Tensor], ctx: DistContext, tokens_per_sample: int,
                  flops_per_token: float) -> dict[str, Any]:
    elapsed = max(result.elapsed_s, 1e-9)
    summary: dict[str, Any] = {
        "status": result.status,
        "signal": result.signal_name,
        "step": result.position.step,
        "epoch": result.position.epoch,
        "final_loss": result.final_loss if math.isfinite(result.final_loss) else None,
        "val_loss": result.val_loss if result.val_loss is not None and math.isfinite(result.val_loss) else None,
        "params_sha256": params_sha256(state),
        "world_size": ctx.world_size,
        "steps_run": result.steps_run,
        "elapsed_s": round(elapsed, 3),
        "samples_per_s": result.samples / elapsed,
    }
    if tokens_per_sample:
        summary["tokens_per_s"] = result.samples * tokens_per_sample / elapsed
        peak = _peak_flops(ctx)
        if peak and flops_per_token:
            summary["mfu"] = summary["tokens_per_s"] / ctx.world_size * flops_per_token / peak
    if result.breakdown is not None:
        summary["breakdown_ms_per_step"] = result.breakdown.per_step_ms()
    return summary


def _peak_flops(ctx: DistContext) -> float | None:
    if ctx.device.type != "cuda":
        return None
    return peak_bf16_flops(torch.cuda.get_device_name(ctx.device))


def peak_bf16_flops(device_name: str) -> float | None:
    """The dense bf16 peak of a GPU named `device_name` (torch.cuda.get_device_name), None when unknown."""
    name = device_name.upper()
    return next((peak for key, peak in PEAK_BF16_FLOPS.items() if key in name), None)


def _log_summary(summary: dict[str, Any], result: TrainResult) -> None:
    loss = "n/a" if summary["final_loss"] is None else f"{summary['final_loss']:.4f}"
    if summary["val_loss"] is not None:
        loss += f" (validation {summary['val_loss']:.4f})"
    line = (
        f"{summary['status']} at step {summary['step']} (epoch {result.position.epoch_number}): loss {loss}, "
        f"{format_rate(summary['samples_per_s'])} samples/s"
    )
    if "tokens_per_s" in summary:
        line += f", {format_rate(summary['tokens_per_s'])} tokens/s"
    if "mfu" in summary:
        line += f", MFU {100 * summary['mfu']:.1f}%"
    log.info("%s, %d steps in %.1fs on %d rank(s)",
             line, summary["steps_run"], summary["elapsed_s"], summary["world_size"])
    if result.breakdown is not None:
        log.info("%s", result.breakdown.summary_line())
    if result.status == "preempted":
        log.warning("stopped by %s after a snapshot at step %d; run the same command again to resume",
                    result.signal_name, summary["step"])
