"""Apply the fabric policy in-process when nothing applied it before us.

`apptainer run` (the image's runscript) and the job scripts source `fabric_policy.env` before Python
starts; `apptainer exec app.sif python -m app.check`, the way users call the check, does not. Without
this, the check would measure NCCL with other settings than the job will use (no NCCL_NET, NCCL_IB_HCA,
FI_PROVIDER...), and pass or fail where the job would not. So `app.check` and `app.train` source the
same file through /bin/sh, before NCCL starts, and take over what it changed: set-if-unset stays the
shell file's rule, so a user's own value still wins. The policy exports APP_FABRIC_POLICY (the fabric
it chose); when that is already set, the environment is left as it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass

from app.host.common.fabric_policy import POLICY_FILE

APPLIED_MARKER = "APP_FABRIC_POLICY"
# Read by the dynamic loader when the process starts: a change needs a new process image to count.
LOADER_VARIABLES = ("LD_LIBRARY_PATH", "LD_PRELOAD")


@dataclass(frozen=True)
class PolicyResult:
    fabric: str
    log_lines: list[str]
    """The policy's own `[fabric X] setting NAME=VALUE (why)` lines, as the job scripts log them."""
    loader_changed: bool
    """LD_LIBRARY_PATH changed: the process must re-execute itself for the loader to see it."""


def _policy_environment(environ: MutableMapping[str, str]) -> tuple[dict[str, str], list[str]]:
    script = '. "$1" >/dev/null && env -0'
    child = {**environ, "APP_FABRIC_LOG": "1"}
    result = subprocess.run(["/bin/sh", "-c", script, "sh", str(POLICY_FILE)], env=child, capture_output=True,
                            timeout=30, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"sourcing {POLICY_FILE} failed ({result.returncode}): "
                           f"{result.stderr.decode(errors='replace').strip()}")
    # As Python decodes its own environment (surrogate escapes, PEP 383): a value that is not UTF-8 comes back
    # equal to the one given, and is encoded back to the same bytes for the processes we start.
    after = dict(entry.split("=", 1) for entry in os.fsdecode(result.stdout).split("\0") if "=" in entry)
    lines = [line for line in result.stderr.decode(errors="replace").splitlines() if line.startswith("[fabric ")]
    return after, lines


def _policy_owns(name: str) -> bool:
    """Only what the policy may set is taken over: the shell drops exported functions (Lmod's
    BASH_FUNC_module%%) and adds PWD and friends, none of which are its to change."""
    return name.startswith(("NCCL_", "FI_")) or name in (*LOADER_VARIABLES, APPLIED_MARKER)


def apply_fabric_policy(environ: MutableMapping[str, str] = os.environ) -> PolicyResult | None:
    """Source the policy into `environ` unless it was applied already; None when there was nothing to do."""
    if APPLIED_MARKER in environ:
        return None
    after, lines = _policy_environment(environ)
    loader_before = {name: environ.get(name) for name in LOADER_VARIABLES}
    for name in [name for name in environ if _policy_owns(name) and name not in after]:
        del environ[name]  # what the policy unsets (NCCL_NET_PLUGIN)
    for name, value in after.items():
        if _policy_owns(name) and environ.get(name) != value:
            environ[name] = value
    loader_changed = any(environ.get(name) != before for name, before in loader_before.items())
    return PolicyResult(after.get(APPLIED_MARKER, "none"), lines, loader_changed)


def reexec_with(environ: MutableMapping[str, str]) -> None:
    """Replace this process by itself (same pid, so torchrun keeps watching it) under `environ`."""
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], dict(environ))


def ensure_fabric_policy(local_rank: int, environ: MutableMapping[str, str] = os.environ) -> None:
    """Apply the policy unless applied (before any NCCL call); its lines on stderr from local rank 0."""
    result = apply_fabric_policy(environ)
    if result is None:
        return
    if local_rank == 0 and result.log_lines:
        print(f"[fabric {result.fabric}] the fabric policy was not applied (apptainer exec?): applying it now",
              file=sys.stderr)
        for line in result.log_lines:
            print(line, file=sys.stderr)
        sys.stderr.flush()
    if result.loader_changed:
        reexec_with(environ)
