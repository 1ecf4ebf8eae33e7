"""Where the workers import the project from (standard library only).

`python -m app.train` puts the working directory, the submit directory, first on the import path, and a submit
directory is often a project directory a group can write: a `yaml.py` or `torch.py` planted there ran as the job's
user in every worker. For the job's own workloads (train, check, and the preflight's check before any workload) the
workers import this checkout through PYTHONPATH and nothing from the working directory: PYTHONSAFEPATH=1 (Python 3.11
and newer: the images' Pythons; an older Python ignores it and keeps the working directory first). Your own script or
module is imported from where you keep it (the script's directory, the submit directory): that directory is yours to
keep writable only by you (docs/security.md)."""

import os
from typing import Callable, List, Mapping

#: The workloads whose code is all this checkout's
OWN_WORKLOADS = ("train", "check")


def import_path_env(kind: str, repo: str, env: Mapping[str, str], log: Callable[[str], None]) -> List[str]:
    """NAME=VALUE to export for a workload of KIND: PYTHONSAFEPATH=1 unless you set it to a value Python reads as
    on, and REPO first on PYTHONPATH (where the workers then find `app`); nothing for your own script or module."""
    if kind not in OWN_WORKLOADS:
        return []
    exports = []
    # Python takes any value but an empty one as on ("0" too), and an empty one as unset: config_read_env_vars
    # (Python/initconfig.c) reads it through _Py_GetEnv (Python/preconfig.c), which returns NULL for ""
    if env.get("PYTHONSAFEPATH"):
        log(f"keeping PYTHONSAFEPATH={env['PYTHONSAFEPATH']} (set by you)")
    else:
        exports.append("PYTHONSAFEPATH=1")
        empty = "; yours is empty, which Python reads as unset" if "PYTHONSAFEPATH" in env else ""
        log(f"setting PYTHONSAFEPATH=1 (the workers import nothing from the submit directory, which others may "
            f"write{empty})")
    given = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
    if given[:1] != [repo]:
        exports.append("PYTHONPATH=" + os.pathsep.join([repo, *given]))
        log(f"PYTHONPATH: {repo} first (the workers import this checkout's app)")
    return exports
