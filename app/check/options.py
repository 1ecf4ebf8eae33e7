"""The settings of `python -m app.check`: one object, `CheckSettings`, with the trainer's precedence.

Precedence: command-line flags > `--site PROFILE` (a YAML file, or a name in app/check/sites/) >
defaults, through the trainer's loader (app/common/typedconfig.py): each flag given becomes a
`key=value` override. A site profile holds what belongs to a cluster rather than a run (bandwidth
thresholds, message sizes, the stage deadline); values derived from the settings (message sizes in
bytes, the thresholds by scope, the collectives) are computed here, once.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from app.check.collectives import COLLECTIVES
from app.check.node.probe import Probe
from app.common.typedconfig import describe, load_config
from app.host.common import exitcodes
from app.host.common.access import why_unwritable
from app.host.common.errors import UsageError

SITES_DIR = Path(__file__).with_name("sites")
SCOPES = ("intra", "inter", "all")
#: The files the check writes at its end (rank 0), by setting: the flag that sets it and an example path
OUTPUTS = (("json", "--json", "check.json"), ("exclude_file", "--exclude-file", "exclude.txt"),
           ("plot", "--plot", "busbw.png"))
#: `--preflight`: the most seconds a stage may take (a job's preflight must stay short; documented <= 30 s).
PREFLIGHT_DEADLINE_S = 30.0
PREFLIGHT_COLLECTIVES = ("all_reduce", "all_gather")
#: The codes app.check ends with (--help and docs/check.md list them): a pass, a traceback, one per stage of the
#: report (report.STAGES: usage, preflight and consistency, rendezvous, deadline, correctness, bandwidth), a
#: tampered store, Ctrl-C. Not app.diagnose's NOTHING_RECOGNISED nor the trainer's STORAGE and PREEMPTED: an output
#: file (--json, --plot, --exclude-file) that cannot be written is a traceback.
EXIT_CODES = (exitcodes.OK, exitcodes.INTERNAL, exitcodes.USAGE, exitcodes.RENDEZVOUS, exitcodes.TIMEOUT,
              exitcodes.WRONG_RESULTS, exitcodes.SLOW, exitcodes.PREFLIGHT, exitcodes.STORE, exitcodes.INTERRUPTED)
_UNITS = {
    "": 1,
    "B": 1,
    "K": 1 << 10,
    "KB": 1 << 10,
    "KIB": 1 << 10,
    "M": 1 << 20,
    "MB": 1 << 20,
    "MIB": 1 << 20,
    "G": 1 << 30,
    "GB": 1 << 30,
    "GIB": 1 << 30,
}


@dataclass
class CheckSettings:
    min_busbw_intra: float = 0.0
    """Minimum all_reduce busbw (GB/s) within each node, at the largest message size; 0: no threshold."""
    min_busbw_inter: float = 0.0
    """Minimum all_reduce busbw (GB/s) across nodes (one rank per node); 0: no threshold."""
    min_busbw_all: float = 0.0
    """Minimum all_reduce busbw (GB/s) over all ranks; 0: no threshold."""
    sizes: list[str] = field(default_factory=list)
    """Message sizes for the sweep, e.g. [32K, 2M, 128M]; empty: defaults for GPU or CPU."""
    deadline_s: float = 60.0
    """Seconds each stage may take before the check names the rank that stopped answering."""
    min_read_mbps: float = 0.0
    """With --data-dir: minimum read throughput (MB/s) of the data's filesystem; 0: report only."""
    collectives: list[str] = field(default_factory=list)
    """Which collectives, e.g. [all_reduce, all_gather]; empty: all (with preflight: all_reduce, all_gather)."""
    preflight: bool = False
    """The job scripts' short profile: smallest and largest size, stages capped at 30 s (--preflight)."""
    nccl_tests: bool = False
    """Also run all_reduce_perf (nccl-tests) when it is on PATH (--nccl-tests)."""
    node_only: bool = False
    """Node checks only: no rendezvous, no collectives (--node-only)."""
    data_dir: str = ""
    """Probe the read throughput of the training data's filesystem (--data-dir)."""
    json: str = ""
    """Write the whole report as JSON here (rank 0; --json)."""
    plot: str = ""
    """Write busbw against message size as a PNG here (rank 0; --plot)."""
    exclude_file: str = ""
    """Write the hostnames of the nodes a failure blames here, one a line (--exclude-file)."""

    def validate(self) -> None:
        for scope in SCOPES:
            value = getattr(self, f"min_busbw_{scope}")
            if value < 0:
                raise UsageError(f"min_busbw_{scope}={value} must be 0 or more; example: --min-busbw {scope}=20")
        if self.deadline_s <= 0:
            raise UsageError(f"deadline_s={self.deadline_s} must be positive; example: --deadline 60")
        for size in self.sizes:
            parse_size(size)
        unknown = [c for c in self.collectives if c not in COLLECTIVES]
        if unknown:
            raise UsageError(f"collectives: unknown {', '.join(unknown)}; example: --collectives all_reduce,all_gather")

    @property
    def thresholds(self) -> dict[str, float]:
        """The busbw thresholds set, by scope."""
        set_ = {scope: getattr(self, f"min_busbw_{scope}") for scope in SCOPES}
        return {scope: value for scope, value in set_.items() if value > 0}

    @property
    def chosen_collectives(self) -> tuple[str, ...]:
        # all_gather beside all_reduce: a sum cannot say whose data was wrong, a gather can (the node to exclude)
        if self.collectives:
            return tuple(self.collectives)
        return PREFLIGHT_COLLECTIVES if self.preflight else COLLECTIVES

    def message_sizes(self, defaults: Sequence[int]) -> list[int]:
        """The sweep's sizes in bytes (`defaults` when none are set); the preflight's: the smallest and largest."""
        sizes = sorted({parse_size(s) for s in self.sizes} or set(defaults))
        return sorted({sizes[0], sizes[-1]}) if self.preflight and sizes else sizes


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(text))
    unit = match.group(2).upper() if match else ""
    if not match or unit not in _UNITS or int(match.group(1)) <= 0:
        raise UsageError(f"message size {text!r} is not a positive size; examples: 4096, 32K, 2M, 1G")
    return int(match.group(1)) * _UNITS[unit]


def parse_threshold(text: str) -> tuple[str, float]:
    scope, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not sep or scope not in SCOPES or number < 0:
        raise UsageError(
            f"--min-busbw {text!r} is not SCOPE=GBps with SCOPE one of {', '.join(SCOPES)}; "
            "example: --min-busbw inter=40"
        )
    return scope, number


def site_file(name: str) -> str | None:
    """The YAML file of `--site NAME`: a path (with a `/`, or ending .yaml), else a profile shipped in
    app/check/sites/ (a file of that bare name in the working directory, which others may write, is not
    read); None without one."""
    if not name:
        return None
    if "/" in name or name.endswith((".yaml", ".yml")):
        return name
    path = SITES_DIR / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in SITES_DIR.glob("*.yaml")))
        raise UsageError(
            f"--site {name!r} is not a known profile ({known}), and a bare name is never read from the working "
            f"directory; example: --site mn5, or --site ./{name}.yaml"
        )
    return str(path)


def load_site(name: str) -> CheckSettings:
    """The settings a site profile gives (defaults < profile)."""
    return load_config(CheckSettings, site_file(name), [])


def check_outputs(settings: CheckSettings) -> None:
    """Refuse, at the start, a --json, --exclude-file or --plot path that cannot be written: the file is written
    after the verdict, when the collectives' results would be lost (as the trainer checks run.dir before it
    joins). Every rank asks, so all stop together; access(2) writes nothing, so thousands of ranks may."""
    for key, flag, example in OUTPUTS:
        path = getattr(settings, key)
        why = why_unwritable(path) if path else None
        if why is not None:
            raise UsageError(f"{flag} {path}: cannot write it: {why}; give a path in a directory you can write, "
                             f"e.g. {flag} {example}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line and exit code 2 through `exits_cleanly`, like every other usage error."""
        raise UsageError(f"{message}; see python -m app.check --help")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m app.check",
        description="Can these nodes train together? Node checks (GPU, network, fabric plugin, container,\n"
        "rendezvous), then collective correctness and bandwidth per scope. Run it like the trainer:\n"
        "plain, under torchrun, srun or mpiexec, inside the image.",
        epilog="settings (keys of a --site YAML profile; a flag wins over the profile):\n"
        + "\n".join(describe(CheckSettings))
        + "\n\nexit codes:\n"
        + "\n".join(f"  {code:>3}  {exitcodes.DESCRIPTIONS[code]}" for code in EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--json", metavar="PATH", help="write the whole report as JSON (rank 0)")
    add("--plot", metavar="PATH.png",
        help="write busbw against message size as a PNG (rank 0; needs matplotlib, else a CSV beside PATH)")
    add("--exclude-file", metavar="PATH",
        help="write the hostnames of the nodes a failure blames, one a line (empty: none); for sbatch --exclude")
    add("--sizes", nargs="+", metavar="SIZE", default=None, help="message sizes, e.g. 32K 2M 128M")
    add(
        "--min-busbw",
        action="append",
        default=[],
        metavar="SCOPE=GBps",
        help="fail (exit 6) when all_reduce busbw at the largest size is below this; SCOPE: intra|inter|all",
    )
    add(
        "--site",
        default="",
        metavar="PROFILE",
        help="site profile: a YAML file or a name in app/check/sites/",
    )
    add(
        "--data-dir",
        metavar="DIR",
        help="probe read throughput of the training data's filesystem",
    )
    add("--node-only", action="store_true", help="node checks only: no rendezvous, no collectives")
    add(
        "--deadline",
        type=float,
        default=None,
        metavar="S",
        help="seconds per stage before a rank counts as hung (60)",
    )
    add("--collectives", default=None, metavar="LIST",
        help=f"comma-separated subset of {', '.join(COLLECTIVES)} (default: all); example: all_reduce,all_gather")
    add("--preflight", action="store_true",
        help="the short profile the job scripts run before training: all_reduce and all_gather, at the smallest and "
             f"largest size, stages capped at {PREFLIGHT_DEADLINE_S:.0f}s; the site's thresholds still apply")
    add("--nccl-tests", action="store_true", help="also run all_reduce_perf (nccl-tests) when it is on PATH")
    add("--sys-root", default="/sys", help=argparse.SUPPRESS)  # fake sysfs trees in tests
    add("--dev-root", default="/dev", help=argparse.SUPPRESS)
    add("--root", default="/", help=argparse.SUPPRESS)
    add("--proc-root", default="/proc", help=argparse.SUPPRESS)
    return parser


def parse_options(argv: list[str] | None) -> tuple[CheckSettings, Probe]:
    """The settings (defaults < --site profile < flags) and where the node checks look."""
    args = build_parser().parse_args(argv)
    overrides = [f"min_busbw_{scope}={value}" for scope, value in map(parse_threshold, args.min_busbw)]
    given = {"sizes": ",".join(args.sizes) if args.sizes is not None else None, "deadline_s": args.deadline,
             "collectives": args.collectives, "data_dir": args.data_dir, "json": args.json, "plot": args.plot,
             "exclude_file": args.exclude_file}
    overrides += [f"{key}={value}" for key, value in given.items() if value is not None]
    overrides += [f"{flag}=true" for flag in ("preflight", "nccl_tests", "node_only") if getattr(args, flag)]
    settings = load_config(CheckSettings, site_file(args.site), overrides)
    if settings.preflight and args.deadline is None:
        settings.deadline_s = min(settings.deadline_s, PREFLIGHT_DEADLINE_S)
    check_outputs(settings)
    return settings, Probe(Path(args.sys_root), Path(args.dev_root), Path(args.root), Path(args.proc_root))
