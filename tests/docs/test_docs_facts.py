"""Facts the README and docs/ state, held to the code that makes them true: the job scripts' knobs, the messages
the scripts print, the PBS log's name, the model presets' sizes, the README's first jobs, the CUDA compat step's
driver floors, and no word a newcomer cannot decode."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.common.test_cuda_compat import IMAGE_DRIVER, fake_node
from tests.common.test_cuda_compat import run as run_compat_helper
from tests.docs.markdown import DOCS, README, REPO, documentation, fenced_commands, section, table_rows

JOBSCRIPTS = REPO / "jobscripts"
KNOBS_PAGE = DOCS / "knobs.md"
#: What the scripts read that is not a user's knob: the schedulers' and launchers' own variables and variables the
#: scripts only pass on or extend.
NOT_KNOBS = re.compile(r"(SLURM|SLURMD|PBS|PALS|PMIX)_.*|CUDA_VISIBLE_DEVICES|LD_LIBRARY_PATH|FI_PROVIDER")


def job_script_text() -> str:
    """The job scripts' bash, and the Python they start, which reads knobs from the environment: the job's plan
    (app/host/launch) and the image build job (containers/imagetool/buildjob.py)."""
    return "".join(p.read_text() for p in [*JOBSCRIPTS.glob("*.sh"), *(REPO / "app" / "host" / "launch").glob("*.py"),
                                           REPO / "containers" / "imagetool" / "buildjob.py"])


def script_knobs() -> set[str]:
    text = "".join(p.read_text() for p in JOBSCRIPTS.glob("*.sh"))
    read = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)(?::?[-=+]|\})", text))
    return {name for name in read if not NOT_KNOBS.fullmatch(name)} & set(
        re.findall(r"\$\{([A-Z][A-Z0-9_]*):?[-=]", text))


def knobs_table() -> dict[str, str]:
    """The `| knob | ... |` rows of docs/knobs.md: name -> the rest of the row."""
    rows = {}
    for line in KNOBS_PAGE.read_text().splitlines():
        match = re.match(r"\| `([A-Z][A-Z0-9_]*)` \|(.*)", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def test_the_knobs_page_lists_every_knob_the_job_scripts_read() -> None:
    missing = script_knobs() - set(knobs_table())
    assert not missing, f"docs/knobs.md does not list {sorted(missing)}"
    for knob in ("REQUEUE", "WALLTIME_S", "PREEMPT_MARGIN_S", "LAUNCHER", "WORKLOAD", "HOST_LIBFABRIC_DIR"):
        assert knob in knobs_table()


def test_every_knob_the_page_lists_is_read_by_a_job_script() -> None:
    text = job_script_text()
    stale = [k for k in knobs_table() if not re.search(rf"\b{k}\b", text)]
    assert not stale, f"docs/knobs.md lists knobs no job script reads: {stale}"


#: Words that name something only the project's authors know (a sample file's number, a tutorial no page
#: links), and a pip command that could install an unrelated PyPI package called `app`.
UNDECODABLE = [r"\bseed 0\d\d\b", r"Olivia tutorial", r"EAP tutorial", r"pip install '?app\[", r"ddp\.e\d",
               r"singularity not found in PATH", r"which lists every override"]


@pytest.mark.parametrize("page", documentation(), ids=lambda p: p.name)
def test_the_documentation_says_nothing_a_newcomer_cannot_decode_or_that_is_not_true(page: Path) -> None:
    text = page.read_text()
    found = [pattern for pattern in UNDECODABLE if re.search(pattern, text, re.I)]
    assert not found, f"{page.relative_to(REPO)} says {found}"


def test_the_pbs_log_the_docs_name_is_the_one_pbs_writes() -> None:
    """gh200-pbs.sh joins stderr into stdout (-j oe) under its job name (-N ddp): PBS writes NAME.oSEQ only."""
    script = (JOBSCRIPTS / "gh200-pbs.sh").read_text()
    name = re.search(r"^#PBS -N (\S+)", script, re.M).group(1)
    assert re.search(r"^#PBS -j oe", script, re.M)
    prose = "".join(p.read_text() for p in documentation())
    # PBS names it after the job id's number (15481 of 15481.pbs01), as the README says: <seq>, never <jobid>
    assert f"{name}.o<seq>" in prose and f"{name}.o<jobid>" not in prose
    assert not re.search(rf"\b{name}\.e(\d|<)", prose)


def test_the_line_job_scripts_md_says_starts_the_job_is_each_scripts_own() -> None:
    """job-scripts.md quotes it once, with NAME and the optional --scheduler and --site in brackets."""
    quoted = re.findall(r"`(exec python3 [^`]*app\.host\.launch[^`]*)`", (DOCS / "job-scripts.md").read_text())
    assert len(quoted) == 1, quoted
    general = re.sub(r" \[--(scheduler|site)=[^]]*\]", "", quoted[0])
    for script in ("slurm.sh", "mn5.sh", "gh200-pbs.sh"):
        started = [line for line in (JOBSCRIPTS / script).read_text().splitlines() if line.startswith("exec python3")]
        assert len(started) == 1, (script, started)
        line = re.sub(r" --(scheduler|site)=\S+", "", started[0].replace(f"--script={script}", "--script=NAME"))
        assert line == general, (script, line)


def test_the_missing_runtime_row_quotes_what_the_script_prints(tmp_path: Path) -> None:
    """The symptom row for a missing Apptainer quotes the job script's own message, word for word."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in Path("/usr/bin").iterdir():
        if tool.name not in ("apptainer", "singularity"):
            (bin_dir / tool.name).symlink_to(tool)
    image = tmp_path / "app.sif"
    image.write_bytes(b"")
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02",
           "GPUS_PER_NODE": "4", "IMAGE": str(image), "RUN_DIR": str(tmp_path / "run")}
    result = subprocess.run(["bash", str(JOBSCRIPTS / "mn5.sh"), "train"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    said = re.search(r"(\S+ not found in PATH)", output)
    assert said, output[-3000:]
    rows = [line for p in documentation() for line in p.read_text().splitlines()
            if line.startswith("| `") and "not found in PATH" in line]
    assert rows, "no symptom row for a missing container runtime"
    for row in rows:
        assert f"`{said.group(1)}`" in row, f"the script prints {said.group(1)!r}; the row says {row}"


def _claimed_sizes(text: str) -> dict[str, tuple[float, float]]:
    """`small (~14M)`, `gpt2 (124M)`: preset -> (millions of parameters, half a unit of the last digit given)."""
    scale = {"M": 1.0, "B": 1000.0}
    claims = {}
    for name, number, unit in re.findall(r"`?([a-z0-9-]+)`? \(~?([\d.]+)([MB])[,)]", text):
        decimals = len(number.partition(".")[2])
        claims[name] = (float(number) * scale[unit], 0.5 * 10 ** -decimals * scale[unit])
    return claims


def _real_size(preset: str) -> float:
    result = subprocess.run([sys.executable, "-m", "app.train", "--config", "demo", f"model.size={preset}",
                             "--dry-run", "--world-size", "1"], cwd=REPO, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert result.returncode == 0, result.stderr[-2000:]
    return int(re.search(r"^parameters\s+([\d,]+)", result.stdout, re.M).group(1).replace(",", "")) / 1e6


@pytest.mark.slow
def test_the_model_sizes_the_help_and_the_docs_give_are_the_real_ones() -> None:
    helped = subprocess.run([sys.executable, "-m", "app.train", "--help"], cwd=REPO, capture_output=True,
                            text=True, timeout=120).stdout
    line = next(line for line in helped.splitlines() if "GPT preset:" in line)
    claims = {"--help": _claimed_sizes(line)}
    for page in documentation():
        for row in page.read_text().splitlines():
            if "`model.size`" in row:
                claims[page.name] = _claimed_sizes(row)
    assert set(claims["--help"]) >= {"tiny", "small", "gpt2"}
    real = {preset: _real_size(preset) for preset in ("tiny", "small", "gpt2")}
    for where, sizes in claims.items():
        for preset, (claimed, rounding) in sizes.items():
            if preset in real:
                assert abs(claimed - real[preset]) <= max(0.1 * real[preset], rounding), (
                    f"{where} says {preset} has {claimed}M parameters; it has {real[preset]:.2f}M")


def test_the_exit_codes_of_app_check_its_help_and_its_page_list_are_the_ones_it_ends_with() -> None:
    """--help's and docs/check.md's codes are those app.check can end with: a pass, a traceback, one per stage of
    the report (report.STAGES), a tampered store, an interrupt; not app.diagnose's or the trainer's own."""
    from app.check.report import STAGES
    from app.host.common import exitcodes

    helped = subprocess.run([sys.executable, "-m", "app.check", "--help"], cwd=REPO, capture_output=True,
                            text=True, timeout=120).stdout
    listed = helped.split("\nexit codes:\n", 1)[1]
    in_help = [int(code) for code in re.findall(r"^ +(\d+) ", listed, re.M)]
    page = section((DOCS / "check.md").read_text(), "Exit codes")
    on_page = [int(row[0]) for row in table_rows(page, "| code |")]
    ends_with = {exitcodes.OK, exitcodes.INTERNAL, *STAGES.values(), exitcodes.STORE, exitcodes.INTERRUPTED}
    assert sorted(in_help) == sorted(ends_with), helped
    assert sorted(on_page) == sorted(ends_with), page


def test_the_sealed_store_helper_your_script_md_names_imports_in_the_image_without_the_checkout() -> None:
    """The page's `from MODULE import NAME` is in the app wheel the image installs, and the job puts no checkout on
    PYTHONPATH for a script of your own: the image's copy is the one such a script imports."""
    from imagetool.appwheel import read_project

    from app.host.launch.import_path import import_path_env

    page = section((DOCS / "your-script.md").read_text(), "The store your process group meets through")
    module, name = re.search(r"^ +from (app\.[\w.]+) import (\w+)$", page, re.M).groups()
    wheel = read_project(REPO).files
    assert module.replace(".", "/") + ".py" in wheel, sorted(wheel)
    assert re.search(rf"^def {name}\(", wheel[module.replace(".", "/") + ".py"].read_text(), re.M)
    assert import_path_env("script", str(REPO), {"PYTHONPATH": "/elsewhere"}, lambda line: None) == []


def test_your_script_md_names_every_file_the_job_scripts_keep_in_run_dir(tmp_path: Path) -> None:
    """A script of your own must not use these names: the page lists each one the job's code makes there (the stop
    request and its nodes' codes, the flight recorder's dumps, DeepSpeed's hostfile, ...)."""
    from app.host.launch.fabric import flight_recorder_defaults
    from app.host.launch.step import fresh_stop_file

    fresh_stop_file(str(tmp_path / ".stop-requested"))
    made = [path.name + "/" * path.is_dir() for path in tmp_path.iterdir()]
    dumps = [Path(value).name + "*" for name, value, _ in flight_recorder_defaults(str(tmp_path))
             if name == "TORCH_FR_DUMP_TEMP_FILE"]
    page = " ".join((DOCS / "your-script.md").read_text().split())
    listed = re.search(r"The job scripts keep a few files of their own there: (.+?); use other names", page)
    assert listed, "docs/your-script.md no longer lists the job scripts' files in RUN_DIR"
    names = re.findall(r"`([^`]+)`", listed.group(1))
    for name in [*made, *dumps, ".stop-requested", "hostfile", "preflight.json", "nodes-to-exclude.txt",
                 "history.jsonl"]:
        assert name in names, f"{name} is missing from {names}"


def test_the_pages_app_diagnose_points_to_hold_the_tables_it_names() -> None:
    """A fix that sends the reader to a page's symptom table names a page that has one."""
    from app.host.diagnose.causes import CAUSES

    for cause in CAUSES:
        for page in re.findall(r"\b(README|docs/[\w-]+\.md)\b", cause.fix):
            path = REPO / ("README.md" if page == "README" else page)
            assert path.exists(), f"{cause.key}: its fix names {page}, which is not there"
            assert "| symptom | cause | fix |" in path.read_text(), f"{cause.key}: {page} has no symptom table"


#: Each row of the README's site table and the README section whose commands its first job must be one of
SITE_SECTIONS = {
    "MareNostrum 5 ACC": "MareNostrum 5",
    "GH200 + Slingshot, PBS Pro": "GH200 on Slingshot with PBS Pro",
    "GH200 + Slingshot, Slurm": "GH200 on Slingshot with Slurm, and any Slurm cluster",
    "any Slurm cluster": "GH200 on Slingshot with Slurm, and any Slurm cluster",
}


def first_jobs() -> dict[str, str]:
    """The README's site table: site -> the command of its `first job` column."""
    return {row[0]: row[-1].strip("`") for row in table_rows(README.read_text(), "| site |")}


def test_every_site_of_the_readme_table_has_a_section_for_its_first_job() -> None:
    assert set(first_jobs()) == set(SITE_SECTIONS)


@pytest.mark.parametrize("site", SITE_SECTIONS)
def test_the_first_job_of_each_readme_row_is_a_command_of_its_own_section(site: str) -> None:
    """The table's command, word for word, is one the site's section runs; a `<placeholder>` in the row stands for
    any one word (the section's own example: `--gres=gpu:<gpus per node>` for `--gres=gpu:1`). The GH200 rows
    have none: the row is the section's command, `--cpus-per-gpu` included."""
    command = first_jobs()[site]
    pattern = r"\S+".join(re.escape(part) for part in re.split(r"<[^>]+>", command))
    commands = fenced_commands(section(README.read_text(), SITE_SECTIONS[site]))
    assert any(re.fullmatch(pattern, given) for given in commands), (
        f"README's table gives {site} the first job `{command}`; its section runs {commands}")


COMPAT_HELPER = REPO / "app" / "common" / "cuda_compat.sh"


def compat_function(call: str) -> subprocess.CompletedProcess[str]:
    """One of app/common/cuda_compat.sh's own functions, run in sh: its definitions (the text before the decision
    it takes when run) followed by CALL."""
    text = COMPAT_HELPER.read_text()
    definitions = text[:text.rindex("\ndecide\n")]
    return subprocess.run(["sh", "-c", f"{definitions}\n{call}"], capture_output=True, text=True, timeout=30)


def compat_value(call: str) -> str:
    result = compat_function(call)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


class CompatRules(NamedTuple):
    """What the helper decides with, by CUDA major: the oldest driver its forward compatibility supports (floor),
    the oldest that runs the major natively (native), and the exit code of a refusal."""

    floor: dict[str, str]
    native: dict[str, str]
    refusal: int


def compat_rules() -> CompatRules:
    """The helper's rules for every CUDA major its compat_floor table knows, asked of its own functions."""
    text = COMPAT_HELPER.read_text()
    table = re.search(r"^compat_floor\(\) \{\n(.*?)^\}", text, re.M | re.S).group(1)
    majors = re.findall(r"\b(\d+)\) echo", table)
    assert majors, "compat_floor lists no CUDA major"
    return CompatRules(floor={major: compat_value(f"compat_floor {major}") for major in majors},
                       native={major: compat_value(f"native_minimum {major}") for major in majors},
                       refusal=compat_function("refuse 1.0 2.0 why").returncode)


def documented_image() -> tuple[str, str]:
    """docs/images.md's example image: its CUDA major and the driver its compat libraries come from."""
    found = re.search(r"for an image on CUDA (\d+)\.\d+ \(compat libraries from driver (\d+)\)",
                      (DOCS / "images.md").read_text())
    assert found, "docs/images.md no longer says which image its compat table is for"
    return found.group(1), found.group(2)


def test_the_compat_floors_the_docs_state_are_the_ones_the_helper_decides_with() -> None:
    rules = compat_rules()
    images, training = (DOCS / "images.md").read_text(), (DOCS / "training.md").read_text()
    major, compat_driver = documented_image()
    assert compat_value(f"cuda_major {compat_driver}") == major, f"the helper takes driver {compat_driver} for " \
        f"another CUDA than {major}"
    floors = re.search(r"The floors \(([^)]*)\)", images).group(1)
    assert {m: f for f, m in re.findall(r"(\d+) for CUDA (\d+)", floors)} == rules.floor, (
        f"docs/images.md says the floors are ({floors}); cuda_compat.sh's compat_floor: {rules.floor}")
    floor, native, refused = rules.floor[major], rules.native[major], f"exit {rules.refusal}"
    rows = [row for row in table_rows(images, "| node | driver |") if row[0].startswith(("data-center", "GeForce"))]
    drivers = [driver for _, driver, _ in rows]
    assert drivers == [f"{floor} to {compat_driver}", f"below {floor}", f"{native} to {compat_driver}",
                       f"below {native}"], f"docs/images.md's compat table: {drivers}; the helper: floor {floor}, " \
                                           f"native from {native}"
    assert refused in rows[1][2] and refused in rows[3][2], rows
    said_native = re.findall(r"older than CUDA (\d+)'s R?(\d+(?:\.\d+)*)", images + training)
    assert len(said_native) == 2 and all(rules.native[m] == d for m, d in said_native), said_native
    assert re.findall(r"drivers from R(\d+)", training) == [floor], "docs/training.md's forward compatibility floor"
    assert re.findall(r"stops before torchrun\s+with exit (\d+)", training) == [str(rules.refusal)]


def documented_refusals() -> list[tuple[str, str, int]]:
    """docs/images.md's compat rows that stop the step: (the row's node, N of `below N`, C of `exit C`)."""
    rows = table_rows((DOCS / "images.md").read_text(), "| node | driver |")
    return [(node, re.fullmatch(r"below (\d+)", driver).group(1), int(re.search(r"exit (\d+)", does).group(1)))
            for node, driver, does in rows if driver.startswith("below ")]


#: A GPU of each kind of row, and what the helper says it did (APP_CUDA_COMPAT_DONE) where it starts the step
STARTED_ON = {"data-center GPU": ("NVIDIA H100 80GB HBM3", "on"),  # forward compatibility
              "GeForce / TITAN": ("NVIDIA GeForce RTX 4090", "native")}  # minor version compatibility


def test_the_compat_table_of_docs_images_is_what_the_helper_does_at_its_edges(tmp_path: Path) -> None:
    """The `below N ... exit C` rows, run on fake nodes (tests/common/test_cuda_compat.py's, with the documented
    image's compat libraries): a driver of branch N starts, one just below N stops with exit C."""
    assert IMAGE_DRIVER.split(".")[0] == documented_image()[1], "the fake nodes' compat libraries are another's"
    refusals = documented_refusals()
    assert [node for node, _, _ in refusals] == list(STARTED_ON), refusals
    for node, edge, code in refusals:
        gpu, done = STARTED_ON[node]
        for driver, expected in ((f"{edge}.00", 0), (f"{int(edge) - 1}.99.99", code)):
            result = run_compat_helper(fake_node(tmp_path / f"{gpu}-{driver}".replace(" ", "-"), driver, gpu=gpu))
            assert result.returncode == expected, f"docs/images.md: {gpu} on driver {driver}; {result.stderr}"
            if expected == 0:
                assert f"APP_CUDA_COMPAT_DONE={done}\n" in result.stdout, result.stdout


IMAGE_SECTION = "Get the project and the image onto the cluster"


def test_the_image_the_readme_copies_after_the_build_job_is_the_one_the_job_writes() -> None:
    """The README's build job, as a GH200 user types it from the checkout: `sbatch -p <partition>
    jobscripts/build-image.sh` (no knobs: the flavour is the node's architecture, the image goes to build/), then
    `cp build/app-<arch>-<version>.sif app.sif`. The path copied is where the job's own program puts the image for
    an aarch64 or an x86_64 node with the README's environment (containers/imagetool/buildjob.py, read_job),
    `<version>` the checkout's; the whole build as a job, from these very lines, runs in
    tests/jobscripts/test_build_image_job.py."""
    from imagetool.buildargs import app_version
    from imagetool.buildjob import read_job

    commands = fenced_commands(section(README.read_text(), IMAGE_SECTION))
    assert "sbatch -p <partition> jobscripts/build-image.sh" in commands, commands
    [copy] = [command for command in commands if command.startswith("cp ")]
    source, destination = copy.split()[1:]
    # The runtime is only looked up on PATH here (a machine without Apptainer still reads the plan)
    for arch in ("aarch64", "x86_64"):
        job = read_job({"APPTAINER": sys.executable}, checkout=REPO, node_arch=arch, node="gpu-node")
        filled = source.replace("<arch>", arch).replace("<version>", app_version(REPO))
        assert filled == str(job.sif.relative_to(REPO)), copy
    assert destination == "app.sif", "the job scripts take the image as app.sif in the checkout"


def test_no_page_gives_a_pip_download_that_fetches_what_the_image_has() -> None:
    """`pip download PACKAGE` fetches every dependency, torch and its CUDA wheels among them (2.9 GB for accelerate),
    although the image has them and keeps its own: the pages give containers/gather-wheels.py (docs/packages.md),
    which downloads with --no-deps; a `pip download` of a package with its dependencies appears only as the plain
    one not to use."""
    given = []
    for page in documentation():
        text = page.read_text()
        for found in re.finditer(r"(?:(\S+)\s+)?`([^`]*\bpip download\s+[^-\s`][^`]*)`", text):
            if "--no-deps" not in found[2] and found[1] != "plain":
                given.append(f"{page.relative_to(REPO)}: {found[2]}")
        for line in text.splitlines():
            if re.match(r"(\s{4}|\$ )?\s*(python3? -m )?pip download\s", line) and "--no-deps" not in line:
                given.append(f"{page.relative_to(REPO)}: {line.strip()}")
    assert not given, "pip download with every dependency (use containers/gather-wheels.py):\n" + "\n".join(given)


#: One screen: no line wider than the project's own (pyproject.toml's line-length, the width of its code and
#: prose), and rows few enough to read the table whole above the commands that follow it
SCREEN_ROWS = 8


def test_the_readmes_get_the_image_table_fits_one_screen() -> None:
    """The table a user picks their way to the image from (site, where the image comes from, the commands) reads
    whole in a terminal or an editor, without a row that wraps; the details are in the prose and docs/images.md."""
    columns = int(re.search(r"^line-length = (\d+)$", (REPO / "pyproject.toml").read_text(), re.M)[1])
    lines = section(README.read_text(), IMAGE_SECTION).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| Site |"))
    table = list(itertools.takewhile(lambda line: line.startswith("|"), lines[start:]))
    assert 1 <= len(table) - 2 <= SCREEN_ROWS, f"{len(table) - 2} rows, more than {SCREEN_ROWS}: {table}"
    wide = [f"{len(line)} columns: {line}" for line in table if len(line) > columns]
    assert not wide, f"rows wider than {columns} columns:\n" + "\n".join(wide)


def test_the_build_job_script_the_readme_submits_asks_both_schedulers_for_one_node() -> None:
    """`sbatch` and `qsub` (the README's comment) read the same script's headers."""
    headers = (JOBSCRIPTS / "build-image.sh").read_text()
    assert re.search(r"^#SBATCH --nodes=1$", headers, re.M) and re.search(r"^#PBS -l select=1$", headers, re.M)
    assert "qsub -q <queue> [-l select=1:<site's resources>] jobscripts/build-image.sh" in README.read_text()
