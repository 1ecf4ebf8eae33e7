"""The fabric policy (`fabric_policy.env` beside this module) as data, for Python readers.

The shell file is the one source: the image's runscript and the job scripts source it, and this module
parses its `app_setting FABRIC WHEN NAME VALUE REASON` lines, so the check's remedies recommend exactly
the values a job would set, and the README's table can be tested against it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path

POLICY_FILE = Path(__file__).with_name("fabric_policy.env")
FABRICS = ("infiniband", "roce", "slingshot", "none")
WHENS = ("always", "multi-node", "mlx5", "ipoib")


@dataclass(frozen=True)
class Setting:
    fabric: str
    when: str
    name: str
    value: str
    reason: str
    why: str
    """The comment above the setting: the full reason, with its source."""


@cache
def settings(path: Path = POLICY_FILE) -> tuple[Setting, ...]:
    """Every `app_setting` line, in order; a FABRIC or WHEN the shell would never match is a ValueError."""
    found, comment = [], []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
            continue
        if stripped.startswith("app_setting "):
            _, fabric, when, name, value, reason = shlex.split(stripped)
            if fabric not in FABRICS or when not in WHENS:
                raise ValueError(f"{path}:{number}: fabric {fabric!r} or when {when!r} is not one of "
                                 f"{FABRICS} / {WHENS}")
            found.append(Setting(fabric, when, name, value, reason, " ".join(comment)))
        comment = []
    return tuple(found)


def recommended(fabric: str, name: str) -> str:
    """The value the policy sets for `name` on `fabric` (KeyError when it sets none)."""
    for setting in settings():
        if setting.fabric == fabric and setting.name == name:
            return setting.value
    raise KeyError(f"the fabric policy sets no {name} for {fabric}")


def export_line(fabric: str, *names: str) -> str:
    """`export A=1 B='two words'`: the policy's values, ready to paste into a job script."""
    return "export " + " ".join(f"{name}={shlex.quote(recommended(fabric, name))}" for name in names)
