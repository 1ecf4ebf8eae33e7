"""The fabric policy (`fabric_policy.env` beside this module) as data, for Python readers.

The shell file is the one source: the image's runscript and the job scripts source it, and this module
parses its `app_setting FABRIC WHEN NAME VALUE REASON` lines, so the check's remedies recommend exactly
the values a job would set, and docs/fabric-policy.md's table can be tested against it.
"""

import re
import shlex
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Tuple

POLICY_FILE = Path(__file__).with_name("fabric_policy.env")
FABRICS = ("infiniband", "roce", "slingshot", "none")
WHENS = ("always", "multi-node", "mlx5", "ipoib")
#: WHEN for a setting made only when the user names its group in OPT_IN_VARIABLE (`opt-in:cxi-no-eager`).
OPT_IN = re.compile(r"opt-in:([a-z0-9-]+)")
OPT_IN_VARIABLE = "APP_FABRIC_OPT_IN"


class Setting(NamedTuple):  # NamedTuple, not a frozen dataclass: dataclasses are 3.7+, the login nodes run 3.6
    fabric: str
    when: str
    name: str
    value: str
    reason: str
    why: str
    """The comment above the setting: the full reason, with its source."""

    @property
    def opt_in(self) -> str:
        """The opt-in group that applies this setting, or '' for a default."""
        match = OPT_IN.fullmatch(self.when)
        return match.group(1) if match else ""


@lru_cache(maxsize=None)  # functools.cache is 3.9+: the login nodes run 3.6
def settings(path: Path = POLICY_FILE) -> Tuple[Setting, ...]:
    """Every `app_setting` line, in order; a FABRIC or WHEN the shell would never match is a ValueError."""
    found, comment = [], []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
            continue
        if stripped.startswith("app_setting "):
            _, fabric, when, name, value, reason = shlex.split(stripped)
            if fabric not in FABRICS or (when not in WHENS and not OPT_IN.fullmatch(when)):
                raise ValueError(f"{path}:{number}: fabric {fabric!r} or when {when!r} is not one of "
                                 f"{FABRICS} / {WHENS} / opt-in:GROUP")
            found.append(Setting(fabric, when, name, value, reason, " ".join(comment)))
        comment = []
    return tuple(found)


def recommended(fabric: str, name: str) -> str:
    """The value the policy sets for `name` on `fabric` (KeyError when it sets none)."""
    for setting in settings():
        if setting.fabric == fabric and setting.name == name:
            return setting.value
    raise KeyError(f"the fabric policy sets no {name} for {fabric}")


def opt_in_line(fabric: str, group: str) -> str:
    """`APP_FABRIC_OPT_IN=group (export A=0 B=0)`: how to ask for an opt-in group, and what it sets."""
    names = [s.name for s in settings() if s.fabric == fabric and s.opt_in == group]
    if not names:
        raise KeyError(f"the fabric policy has no opt-in group {group} for {fabric}")
    return f"{OPT_IN_VARIABLE}={group} ({export_line(fabric, *names)})"


def export_line(fabric: str, *names: str) -> str:
    """`export A=1 B='two words'`: the policy's values, ready to paste into a job script."""
    return "export " + " ".join(f"{name}={shlex.quote(recommended(fabric, name))}" for name in names)
