"""GPU health from `nvidia-smi --query-gpu`: uncorrected ECC errors, row remapping, PCIe link width.

A GPU with uncorrected ECC errors since the driver loaded, or whose row remapping failed, corrupts or
crashes training: FAIL, and the node goes to `--exclude-file`. A pending remap (or, before Ampere, a
pending page retirement) waits for a GPU reset: WARN. A PCIe link narrower than the slot's maximum
halves host<->GPU bandwidth: WARN. The link *generation* is not compared: GPUs lower it when idle to
save power, so a check between jobs would flag every healthy node. XID errors are in the kernel log
(`dmesg`), which unprivileged jobs usually cannot read; they are not read here.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from app.check.node.gpu import NVIDIA_SMI_TIMEOUT_S
from app.check.report import FAIL, OK, WARN, Check
from app.check.scheduler_words import leave_out, under_pbs

FIELDS = (
    "index",
    "pci.bus_id",
    "ecc.errors.uncorrected.volatile.total",
    "remapped_rows.failure",
    "remapped_rows.pending",
    "retired_pages.pending",
    "pcie.link.width.current",
    "pcie.link.width.max",
)
NAME = "gpu: health"


def _value(text: str) -> str | None:
    """A field's value; None for '[N/A]', 'N/A', '[Not Supported]' (the GPU or driver does not report it)."""
    text = text.strip()
    return None if not text or text.startswith("[") or text == "N/A" else text


def judge_health(lines: Sequence[str]) -> Check:
    """One check from `nvidia-smi --query-gpu=FIELDS --format=csv,noheader,nounits` output."""
    failures, warnings = [], []
    gpus = 0
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != len(FIELDS):
            continue
        gpus += 1
        row = dict(zip(FIELDS, map(_value, parts), strict=True))
        gpu = f"GPU {row['index']} ({row['pci.bus_id']})"
        ecc = row["ecc.errors.uncorrected.volatile.total"]
        if ecc is not None and ecc.isdigit() and int(ecc) > 0:
            failures.append(f"{gpu}: {ecc} uncorrected ECC errors since the driver loaded")
        if row["remapped_rows.failure"] == "Yes":
            failures.append(f"{gpu}: row remapping failed (the memory cannot be repaired)")
        if row["remapped_rows.pending"] == "Yes" or row["retired_pages.pending"] == "Yes":
            warnings.append(f"{gpu}: memory repairs pending until the GPU is reset")
        current, widest = row["pcie.link.width.current"], row["pcie.link.width.max"]
        if current and widest and current.isdigit() and widest.isdigit() and int(current) < int(widest):
            warnings.append(f"{gpu}: PCIe link x{current} of x{widest}")
    if failures:
        drain = "pbsnodes -o NODE -C 'GPU health'" if under_pbs() else \
            "scontrol update nodename=NODE state=drain reason='GPU health'"
        return Check(NAME, FAIL, "; ".join(failures + warnings), leave_out("the node", drain))
    if warnings:
        return Check(NAME, WARN, "; ".join(warnings), "reset the GPU (site admins) or reseat/replace the card; "
                     "until then expect slow transfers or a failure later")
    if gpus == 0:
        return Check(NAME, WARN, "nvidia-smi listed no GPU health", "check the driver: nvidia-smi -q")
    return Check(NAME, OK, f"{gpus} GPU(s): no uncorrected ECC errors, no failed or pending memory repairs, "
                 "PCIe links at full width")


def check_health(gpu_count: int) -> list[Check]:
    """The health check where there are GPUs and nvidia-smi; nothing on a CPU node."""
    smi = shutil.which("nvidia-smi")
    if gpu_count == 0 or smi is None:
        return []
    command = [smi, f"--query-gpu={','.join(FIELDS)}", "--format=csv,noheader,nounits"]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S)
    except (subprocess.TimeoutExpired, OSError) as err:
        return [Check(NAME, WARN, f"nvidia-smi --query-gpu failed ({type(err).__name__})",
                      "check the driver: nvidia-smi should answer within seconds")]
    if out.returncode != 0:
        first = (out.stdout + out.stderr).strip().splitlines()[:1] or [""]
        return [Check(NAME, WARN, f"nvidia-smi --query-gpu exited {out.returncode}: {first[0][:160]}",
                      "an older driver may not know a field; nvidia-smi -q shows ECC and PCIe by hand")]
    return [judge_health(out.stdout.splitlines())]
