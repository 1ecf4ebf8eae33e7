"""Settings the job exports for every process of the job, each only where you set none (standard library only)."""

from typing import Callable, List, Mapping, Sequence, Tuple


def env_defaults(log: Callable[[str], None], env: Mapping[str, str],
                 defaults: Sequence[Tuple[str, str, str]]) -> List[str]:
    """NAME=VALUE for each (NAME, VALUE, WHY) of DEFAULTS that ENV lacks (a setting made empty counts as yours); the
    job log says which it sets and why, and which it keeps."""
    exports = []
    for name, value, why in defaults:
        if name in env:
            log(f"keeping {name}={env[name]} (set by you)")
        else:
            exports.append(f"{name}={value}")
            log(f"setting {name}={value} ({why})")
    return exports
