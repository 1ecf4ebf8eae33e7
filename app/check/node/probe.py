"""Where the node checks look: one value handed to each of them instead of separate root arguments.

The host's own `/sys`, `/dev`, `/proc` and `/` by default. The tests hand fake node trees (tests/data/check)
through the hidden `--sys-root`, `--dev-root`, `--proc-root` and `--root` flags; a fake tree has no kernel behind it, so
what only the kernel can say (addresses, this network namespace's own interfaces) is asked only when the
probe is `live`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Probe:
    sys: Path = Path("/sys")
    dev: Path = Path("/dev")
    root: Path = Path("/")
    proc: Path = Path("/proc")

    @classmethod
    def tree(cls, node: Path | str, root: Path | str | None = None) -> Probe:
        """A fake node: `node/sys`, `node/dev` and `node/proc` (a test's tree), `root` for the image's files."""
        return cls(Path(node) / "sys", Path(node) / "dev", Path(root) if root is not None else Path(node),
                   Path(node) / "proc")

    @property
    def live(self) -> bool:
        """This host itself: the kernel can be asked as well as the files."""
        return self.sys == Path("/sys")


#: This host's own files and kernel.
HOST = Probe()
