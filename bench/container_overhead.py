"""Container overhead: the same 2-rank CPU training inside the smoke image and natively, side by side,
and the start-up time of `apptainer exec`.

    python -m bench.container_overhead [--image build/smoke.sif] [--repeats 5] [--steps 60] [--markdown BENCHMARKS.md]

Runs are interleaved (native, container, native, ...) so that load from other work on the machine hits
both alike; each run's throughput is the median samples/s over its steps after the first `--warmup`;
the result is the median over runs. With --markdown, rewrites its section of that file (BENCHMARKS.md).
As root, the container runs as the unprivileged test user (APPTAINER_TEST_USER, default ddpuser),
as on a cluster. Target: container/native >= 0.98.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.markdown import publish

REPO = Path(__file__).resolve().parents[1]
TEST_USER = os.environ.get("APPTAINER_TEST_USER", "ddpuser")


def _as_user() -> list[str]:
    return ["runuser", "-u", TEST_USER, "--"] if os.geteuid() == 0 else []


def _train_command(run_dir: Path, steps: int) -> list[str]:
    return ["torchrun", "--standalone", "--nproc-per-node=2", "-m", "app.train", "--config", "demo",
            f"train.max_steps={steps}", f"snapshot.every={steps * 10}", f"run.dir={run_dir}"]


def _throughput(run_dir: Path, warmup: int) -> float:
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    rates = [r["samples_per_s"] for r in records if r["step"] > warmup]
    if not rates:
        raise SystemExit(f"error: no steps after warm-up in {run_dir}; raise --steps above --warmup")
    return statistics.median(rates)


def _run(command: list[str]) -> None:
    result = subprocess.run(command, cwd="/tmp", capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"error: {' '.join(command[:6])}... failed ({result.returncode}):\n{result.stderr[-2000:]}")


def measure_training(image: Path, repeats: int, steps: int, warmup: int) -> dict[str, list[float]]:
    """samples/s per run, natively (this interpreter's torchrun) and in the image (`apptainer run`)."""
    native_torchrun = str(Path(sys.executable).with_name("torchrun"))
    results: dict[str, list[float]] = {"native": [], "container": []}
    with tempfile.TemporaryDirectory(prefix="bench-container-") as tmp:
        os.chmod(tmp, 0o777)
        for index in range(repeats):
            for where in ("native", "container"):
                run_dir = Path(tmp) / f"{where}-{index}"
                command = _train_command(run_dir, steps)
                if where == "native":
                    _run([native_torchrun, *command[1:]])
                else:
                    _run([*_as_user(), "apptainer", "run", str(image), *command])
                results[where].append(_throughput(run_dir, warmup))
    return results


def measure_startup(image: Path, repeats: int) -> dict[str, list[float]]:
    """Wall seconds for `apptainer exec IMAGE true` and for `import torch` inside vs outside the image."""
    commands = {
        "apptainer exec true": [*_as_user(), "apptainer", "exec", str(image), "true"],
        "import torch (container)": [*_as_user(), "apptainer", "exec", str(image), "python", "-c", "import torch"],
        "import torch (native)": [sys.executable, "-c", "import torch"],
    }
    timings: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, cwd="/tmp", capture_output=True, check=True, timeout=300)
            timings[name].append(time.perf_counter() - start)
    return timings


def _machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    version = subprocess.run(["apptainer", "version"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} CPU cores ({cpu}), {platform.system()} {platform.release()}, Apptainer {version}"


def render_section(command: str, training: dict[str, list[float]], startup: dict[str, list[float]],
                   steps: int, warmup: int) -> str:
    native, container = (statistics.median(training[k]) for k in ("native", "container"))
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True).stdout.strip()
    rows = "\n".join(f"| {name} | {statistics.median(values):.2f} s | {min(values):.2f} s | {max(values):.2f} s |"
                     for name, values in startup.items())
    pairs = list(zip(training["native"], training["container"], strict=True))
    runs = ", ".join(f"{n:.0f}/{c:.0f}" for n, c in pairs)
    ratios = [c / n for n, c in pairs]
    return f"""## Container overhead (smoke image, CPU)

Command: `{command}`
Measured {time.strftime('%Y-%m-%d')} at {revision} on {_machine()}.
Workload: `torchrun --standalone --nproc-per-node=2 -m app.train --config demo train.max_steps={steps}`
(tiny GPT, gloo on CPU), the same torch 2.13.0+cpu wheel natively and in `build/smoke.sif`;
throughput = median samples/s of the steps after step {warmup}, median over {len(training['native'])}
interleaved runs.

| | native | container (`apptainer run`) | container / native |
|---|---|---|---|
| training throughput (samples/s) | {native:.0f} | {container:.0f} | {container / native:.3f} |

Per run, native/container samples/s: {runs}. Paired ratio (each container run over the native run
just before it): median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}. The spread
between runs is load from other work on this shared machine; a ratio within it is no measurable overhead.

| start-up | median | min | max |
|---|---|---|---|
{rows}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.container_overhead", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--image", type=Path, default=REPO / "build" / "smoke.sif")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    options = parser.parse_args(argv)
    if shutil.which("apptainer") is None or not options.image.exists():
        print(f"error: needs apptainer and {options.image} (build it with `make smoke-image`)", file=sys.stderr)
        return 2
    training = measure_training(options.image.resolve(), options.repeats, options.steps, options.warmup)
    startup = measure_startup(options.image.resolve(), options.repeats)
    command = f"python -m bench.container_overhead --repeats {options.repeats}"
    for name in ("image", "steps", "warmup"):  # what shaped the figures, where it is not the default
        if getattr(options, name) != parser.get_default(name):
            command += f" --{name} {getattr(options, name)}"
    section = render_section(command.strip(), training, startup, options.steps, options.warmup)
    publish(section, options.markdown, "bench.container_overhead")
    return 0


if __name__ == "__main__":
    sys.exit(main())
