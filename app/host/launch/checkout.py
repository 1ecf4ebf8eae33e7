"""This checkout's files as the job's plan uses them on the batch host (standard library only): the texts that run
on every node (the PMIx binds wrapper, an srun task's environment), the fabric policy, and the command that runs one
of its modules on the host's python3 as the job scripts do."""

import os
import sys
from typing import List

from app.host.common.errors import UsageError

#: The checkout app/host/launch belongs to
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
#: The fabric policy of this checkout (the image has its own copy at /opt/app/fabric_policy.env)
POLICY_FILE = os.path.join(REPO, "app", "host", "common", "fabric_policy.env")
#: app.check's site profiles, one NAME.yaml each: what `--site NAME` reads (app/check/options.py, SITES_DIR). The
#: check on the nodes imports this checkout's app (import_path.py), so these are the names it knows.
CHECK_PROFILES_DIR = os.path.join(REPO, "app", "check", "sites")


def check_profiles() -> List[str]:
    """The names of app.check's site profiles, sorted (read as file names: the launcher imports no app.check)."""
    try:
        names = os.listdir(CHECK_PROFILES_DIR)
    except OSError:
        raise UsageError(f"{CHECK_PROFILES_DIR} is missing; run the job scripts from a whole checkout") from None
    return sorted(name[:-len(".yaml")] for name in names if name.endswith(".yaml"))


def text(relative: str) -> str:
    """A file of this checkout, whole; its path relative to the checkout."""
    with open(os.path.join(REPO, relative), encoding="utf-8") as handle:
        return handle.read()


def shell_text(relative: str) -> str:
    """A shell file of this checkout as the text `sh -c` runs: without its comment lines, which say why in the file
    and would only lengthen the job log's step line (it shows the command whole)."""
    return "".join(line for line in text(relative).splitlines(keepends=True) if not line.lstrip().startswith("#"))


def module_command(module: str, *args: str) -> List[str]:
    """`python3 -m MODULE ARGS...` of this checkout, isolated as the job scripts start the job."""
    return [sys.executable, "-I", "-S", "-c", text("app/host/launch/run_checkout.py"), REPO, module, *args]
