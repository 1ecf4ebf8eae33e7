"""The job scripts on a shared cluster: what another user can write (a run directory under a group-writable
project directory, a file in the submit directory, the checkout itself) changes nothing, and what the job writes
(its environment, its hostfile) only its owner can read. Each test runs the job's parts in a fresh process
(tests/host/launch/job_parts.py), or the job script itself, as a dry run."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.binds import container_binds
from tests.fixtures.other_user import (
    OTHER_USER,
    SYSTEM_PYTHON,
    as_other_user,
    needs_other_user,
    needs_other_user_and_python,
    needs_shared_group,
    other_uid,
    reachable_tmp,
    runs_swapped_by_the_other_user,
    share_with_group,
    writable_by_a_group,
    write_as_other_user,
)
from tests.host.launch.job_parts import REPO, Ran, job_parts
from tests.jobscripts.test_jobscripts_pbs import pbs_job, pbsdsh_launcher, through_pbsdsh  # noqa: F401  (a fixture)
from tests.trainer_runs import free_port

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's directory needs chown (root)")
OTHER_UID = 54321
#: What runs the job's parts under umask 022, as a login shell leaves it
UMASK_022 = ("sh", "-c", 'umask 022 && exec "$@"', "umask-022")


def hostfile(env: dict[str, str], cwd: Path) -> Ran:
    """The job's plan up to RUN_DIR/hostfile (two nodes of 4 processes, a module of yours), under umask 022: the
    first thing a job writes into its run directory."""
    return job_parts(["workload", "nproc", "hostfile"], {"GPUS_PER_NODE": "4", **env}, "-m", "my_pkg.train",
                     cwd=cwd, prefix=UMASK_022)


def test_a_new_run_dir_is_private_to_its_owner_under_umask_022(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "42"
    result = hostfile({"RUN_DIR": str(run_dir)}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700


def test_run_dir_mode_750_lets_the_group_read(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "42"
    result = hostfile({"RUN_DIR": str(run_dir), "RUN_DIR_MODE": "750"}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o750


def test_a_run_dir_mode_that_lets_others_write_is_refused() -> None:
    result = job_parts([], {"RUN_DIR_MODE": "777"})
    assert result.returncode == 2 and "RUN_DIR_MODE=777" in result.stderr and "example" in result.stderr


@needs_root
def test_a_run_dir_another_user_created_first_is_refused_in_one_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "42"
    run_dir.mkdir(parents=True)
    os.chown(run_dir, OTHER_UID, OTHER_UID)
    result = hostfile({"RUN_DIR": str(run_dir)}, tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and f"uid {OTHER_UID}" in result.stderr and "RUN_DIR=" in result.stderr
    assert list(run_dir.iterdir()) == []


@needs_root
def test_a_symbolic_link_another_user_planted_as_the_run_dir_is_refused(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = tmp_path / "42"
    link.symlink_to(mine)
    os.lchown(link, OTHER_UID, OTHER_UID)
    result = hostfile({"RUN_DIR": str(link)}, tmp_path)
    assert result.returncode == 2 and "symbolic link" in result.stderr, result.stderr
    assert list(mine.iterdir()) == []


def test_a_run_dir_others_can_write_is_refused_with_the_chmod_that_fixes_it(tmp_path: Path) -> None:
    run_dir = tmp_path / "42"
    run_dir.mkdir()
    run_dir.chmod(0o777)
    result = hostfile({"RUN_DIR": str(run_dir)}, tmp_path)
    assert result.returncode == 2 and "chmod go-w" in result.stderr, result.stderr
    assert list(run_dir.iterdir()) == []


def test_pbsdsh_hands_the_environment_over_in_a_file_only_the_owner_reads_and_deletes_it(
        pbs_job: dict[str, str], tmp_path: Path) -> None:  # noqa: F811  (the fixture imported above)
    """pbsdsh's tasks start with the job's initial environment, so the launcher passes the step's through a file
    in RUN_DIR: it holds every exported secret (a token), so it is 0600 under umask 022 and gone after the step."""
    run_dir = Path(pbs_job["RUN_DIR"])
    listing = 'find "$RUN_DIR" -type f -exec grep -l s3cr3t-token {} + | xargs -r stat -c "mode=%a %n"'
    ran = pbsdsh_launcher({**pbs_job, "HF_TOKEN": "s3cr3t-token"}, tmp_path)
    result = through_pbsdsh(ran, listing, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    modes = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("mode=")]
    assert modes and set(modes) == {"mode=600"}, result.stdout
    left = [p for p in run_dir.rglob("*") if p.is_file() and "s3cr3t-token" in p.read_text(errors="replace")]
    assert left == [], f"the environment is left behind in {left}"


@pytest.mark.parametrize(("run_dir_mode", "file_mode"), [("700", 0o600), ("750", 0o640)])
def test_the_hostfile_is_readable_by_whom_the_run_dir_mode_says(tmp_path: Path, run_dir_mode: str,
                                                                file_mode: int) -> None:
    run_dir = tmp_path / "runs" / "42"
    result = hostfile({"RUN_DIR": str(run_dir), "RUN_DIR_MODE": run_dir_mode}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((run_dir / "hostfile").stat().st_mode) == file_mode


def binds_of(run_dir: Path, binds: str = "") -> list[str]:
    """The binds the job's container gets (app/host/launch/binds.py, as Job.container asks it) on a node of no
    fabric."""
    return container_binds("none", str(run_dir), binds).args


@pytest.mark.parametrize("name", ["lr=1e-3,bs=32", "a:b", 'q"x,y'])
def test_a_run_dir_with_a_comma_or_colon_is_bound_whole(tmp_path: Path, name: str) -> None:
    """`apptainer --bind` splits at `,` (binds) and `:` (source, destination): the run directory is bound with
    --mount, its fields CSV-quoted (tested with Apptainer 1.4.5: the directory is seen whole inside)."""
    run_dir = tmp_path / name
    quoted = str(run_dir).replace('"', '""')
    assert binds_of(run_dir) == ["--mount", f'type=bind,"src={quoted}","dst={quoted}"']


def test_a_plain_run_dir_is_bound_as_before(tmp_path: Path) -> None:
    assert binds_of(tmp_path / "run") == ["--bind", str(tmp_path / "run")]


@pytest.mark.parametrize("binds", ["/data/lr=1e-3,bs=32", "/data/a:b", "/data:/in:rx"])
def test_binds_that_apptainer_would_split_elsewhere_are_refused_with_the_remedy(tmp_path: Path, binds: str) -> None:
    with pytest.raises(UsageError) as refused:  # the job's one line, exit 2 (job.job_code)
        binds_of(tmp_path / "run", binds)
    line = str(refused.value)
    assert "\n" not in line and "BINDS" in line and "--mount" in line, line


def test_binds_of_absolute_paths_with_options_are_passed_on(tmp_path: Path) -> None:
    assert binds_of(tmp_path / "run", "/data,/scratch/x:/in:ro")[2:] == ["--bind", "/data", "--bind",
                                                                          "/scratch/x:/in:ro"]


PLANTED = """
import pathlib
pathlib.Path(__file__).with_name("planted-module-ran").touch()
raise ImportError("a module another user planted in the submit directory")
"""


def planted_by_the_other_user(submit: Path) -> None:
    """The other user, a member of the submit directory's group, writes a `yaml.py` and a `torch.py` there (what the
    trainer and the check import)."""
    for planted in ("yaml.py", "torch.py"):
        write_as_other_user(submit / planted, PLANTED.encode())
        assert (submit / planted).stat().st_uid == other_uid()


@pytest.mark.slow  # a real torchrun and its worker, the trainer or the check, each
@needs_other_user
@pytest.mark.parametrize("workload", [["train", "--dry-run"], ["check", "--node-only"]])
def test_a_module_another_user_planted_in_the_submit_directory_is_not_imported_by_the_workers(
        tmp_path: Path, group_project: Path, workload: list[str]) -> None:
    """`python -m` puts the working directory (the submit directory, which a group may write) first on the path: a
    `yaml.py` or `torch.py` a group member put there ran as the job's user in every worker. The job's own workloads
    import this checkout instead."""
    submit = group_project
    planted_by_the_other_user(submit)
    torchrun = Path(sys.executable).parent / "torchrun"
    # The run directory where only you can write (the job refuses one under the group's directory)
    env = {"HOME": str(tmp_path), "RUN_DIR": str(tmp_path / "runs" / "42")}
    planned = job_parts(["workload"], env, *workload, cwd=submit, submit_dir=str(submit))
    assert planned.returncode == 0, planned.stderr
    wrapper = (REPO / "app" / "common" / "node_wrapper.sh").read_text()
    result = subprocess.run(["sh", "-c", wrapper, "ddp-node", f"{submit}/stop", "", "", str(torchrun), "--nnodes=1",
                             "--nproc-per-node=1", "--rdzv-backend=static",
                             f"--rdzv-endpoint=127.0.0.1:{free_port()}", "--rdzv-id=42",
                             *planned.found["workload"]["argv"]],
                            cwd=submit, env={**planned.env, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""},
                            capture_output=True, text=True, timeout=180)
    assert not (submit / "planted-module-ran").exists(), result.stderr[-3000:]
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]


@pytest.mark.slow  # a real torchrun and its worker running app.check --preflight
@needs_other_user
def test_the_preflight_before_your_own_script_imports_nothing_another_user_planted_in_the_submit_directory(
        tmp_path: Path, group_project: Path) -> None:
    """The preflight is the project's app.check whatever the workload: before your own script it ran with the submit
    directory first on its path (`python -m`), where a `yaml.py` or `torch.py` a group member put there ran as you.
    It imports this checkout instead, and your script's own step keeps the import path you gave it."""
    submit = group_project
    planted_by_the_other_user(submit)
    (submit / "my_script.py").write_text("print('mine')\n")
    env = {"HOME": str(tmp_path), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",  # its torchrun
           "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "", "RUN_DIR": str(tmp_path / "runs" / "42")}
    ran = job_parts(["workload", "run-dir", "preflight"], env, "my_script.py", cwd=submit, submit_dir=str(submit),
                    nodes="127.0.0.1", launch_step="torchrun", timeout_s=180)
    assert not (submit / "planted-module-ran").exists(), ran.stdout[-3000:] + ran.stderr[-3000:]
    assert ran.returncode == 0 and "] preflight passed in" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "preflight: setting PYTHONSAFEPATH=1" in ran.stdout
    assert "PYTHONSAFEPATH" not in ran.env and ran.env["PYTHONPATH"] == str(REPO)


@needs_shared_group
def test_a_run_dir_whose_parent_a_group_can_write_is_refused_before_any_step(tmp_path: Path) -> None:
    """A group member who can rename `runs/` in a group-writable submit directory, and make a new one, would receive
    the later snapshots: the job stops at start, naming the directory, with the remedy."""
    project = tmp_path / "project"
    project.mkdir()
    writable_by_a_group(project, 0o2775)  # a project directory: group-writable, setgid
    result = hostfile({"RUN_DIR": str(project / "runs" / "42")}, tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert str(project) in line and "example: RUN_DIR=$HOME/runs/exp1 (a directory an experiment" in line, line


@needs_other_user
def test_a_run_dir_in_a_runs_directory_another_user_swapped_in_is_refused_in_one_line(group_project: Path,
                                                                                    tmp_path: Path) -> None:
    theirs = runs_swapped_by_the_other_user(group_project)
    result = hostfile({"RUN_DIR": str(theirs / "42")}, tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert f"{theirs}, which belongs to another user (uid {other_uid()})" in line, line
    assert "example: RUN_DIR=$HOME/runs/exp1 (a directory an experiment" in line, line
    assert [path for path in theirs.rglob("*") if not path.is_dir()] == [], "the job wrote in the other user's runs/"


def image_plan(env: dict[str, str], submit_dir: Path, bin_dir: Path) -> Ran:
    """The container part of a job submitted from SUBMIT_DIR (IMAGE unset: its app.sif), with a stand-in apptainer
    that says the image is x86_64."""
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "apptainer"
    stub.write_text("#!/bin/sh\n[ \"$1\" = inspect ] && echo 'app.arch: x86_64'\nexit 0\n")
    stub.chmod(0o755)
    return job_parts(["container"], {"FABRIC": "none", "DDP_NODE_ARCH": "x86_64", "PATH": f"{bin_dir}:/usr/bin:/bin",
                                     **env}, cwd=submit_dir, submit_dir=str(submit_dir))


@needs_other_user
def test_an_image_a_group_member_planted_in_the_submit_directory_is_refused_before_any_step(group_project: Path,
                                                                                          tmp_path: Path) -> None:
    # The default IMAGE, ./app.sif in a submit directory the group can write: a member's image ran in every step
    write_as_other_user(group_project / "app.sif", b"their image")
    result = image_plan({"RUN_DIR": str(tmp_path / "run")}, group_project, tmp_path / "bin")
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert (f"IMAGE='{group_project}/app.sif' lies in {group_project}, which other users can write (mode 2775): they "
            "can rename app.sif and make their own in its place: an image they put there would run as you in every "
            "step; keep it where only you can write, e.g. mkdir -m 700 $HOME/images && cp "
            f"{group_project}/app.sif $HOME/images/ and IMAGE=$HOME/images/app.sif") in line, line


def your_image_planned(tmp_path: Path, mode: int) -> tuple[Path, Ran]:
    """Your own image, of MODE, in a directory only you write, planned for a job."""
    image = tmp_path / "app.sif"
    image.write_bytes(b"an image")
    image.chmod(mode)
    return image, image_plan({"IMAGE": str(image), "RUN_DIR": str(tmp_path / "run")}, tmp_path, tmp_path / "bin")


def test_an_image_others_can_write_is_refused(tmp_path: Path) -> None:
    image, result = your_image_planned(tmp_path, 0o666)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"IMAGE='{image}' is writable by other users (mode 0666): an image they put there" in result.stderr


@needs_other_user
def test_an_image_another_user_keeps_in_a_directory_only_they_write_runs_and_the_log_names_its_owner(
        tmp_path: Path) -> None:
    # A site's or a colleague's image: only its owner can change it, as with software they install
    theirs = reachable_tmp()
    try:
        (theirs / "images").mkdir(mode=0o755)
        os.chown(theirs / "images", other_uid(), -1)
        write_as_other_user(theirs / "images" / "app.sif", b"their image")
        as_other_user("chmod", "0644", str(theirs / "images" / "app.sif"))
        result = image_plan({"IMAGE": str(theirs / "images" / "app.sif"), "RUN_DIR": str(tmp_path / "run")}, tmp_path,
                            tmp_path / "bin")
    finally:
        subprocess.run(["rm", "-rf", str(theirs)], check=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (f"IMAGE {theirs}/images/app.sif belongs to ddpuser (uid {other_uid()}): the job runs what its owner puts "
            "there") in result.stdout


def test_your_own_image_in_a_directory_only_you_write_is_run_without_a_word(tmp_path: Path) -> None:
    _, result = your_image_planned(tmp_path, 0o644)
    assert result.returncode == 0, result.stdout + result.stderr
    # Nothing said of its owner or its place: the one IMAGE line names the sha256 the run records
    assert [line for line in result.stdout.splitlines() if "IMAGE " in line and "sha256:" not in line] == []


@pytest.mark.parametrize("variable", ["TMPDIR", "TORCHINDUCTOR_CACHE_DIR"])
def test_a_compile_place_in_a_directory_the_group_can_write_stops_a_job_of_your_own_script_at_its_start(
        group_project: Path, tmp_path: Path, variable: str) -> None:
    """Your own script compiles where torch puts its cache ($TMPDIR/torchinductor_$USER, or the variable): a group
    member who can rename it there swaps in their compiled code. The node wrapper, which runs your script, cannot
    walk the parents: the job refuses at its start, the dry run too."""
    place = group_project / "place"
    place.mkdir(mode=0o700)
    (tmp_path / "my_train.py").write_text("print('mine')\n")
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path), "DRY_RUN": "1",
           "DRY_RUN_NODES": "gpu01,gpu02", "GPUS_PER_NODE": "4", "IMAGE": "none", "RUN_DIR": str(tmp_path / "run"),
           variable: str(place)}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "my_train.py"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert f"lies in {group_project}, which other users can write (mode 2775)" in line, line
    assert line.startswith(f"slurm.sh: error: {variable}='{place}'"), line


def a_checkout(top: Path) -> Path:
    """This checkout's app/ and jobscripts/ (all the job runs of it) copied to TOP, without bytecode."""
    for part in ("app", "jobscripts"):
        shutil.copytree(REPO / part, top / part, ignore=shutil.ignore_patterns("__pycache__"))
    return top


#: The line the other user adds to a module of the job: it leaves a proof that it ran, and as whom
PLANTED_LINE = 'import os; open({proof!r}, "w").write("ran as uid %d" % os.getuid())'


def dry_run(checkout: Path, cwd: Path, *args: str, path: str = "", **env: str) -> subprocess.CompletedProcess:
    """`DRY_RUN=1 bash CHECKOUT/jobscripts/slurm.sh ARGS` from CWD, as a user types it on a login node (IMAGE=none
    and its environment's torch on PATH, unless ENV says otherwise)."""
    full_env = {"PATH": path or f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(cwd), "DRY_RUN": "1",
                "DRY_RUN_NODES": "gpu01,gpu02", "GPUS_PER_NODE": "4", "IMAGE": "none", "RUN_DIR": str(cwd / "run"),
                **env}
    return subprocess.run(["bash", str(checkout / "jobscripts" / "slurm.sh"), *args], env=full_env, cwd=cwd,
                          capture_output=True, text=True, timeout=180)


@needs_other_user
def test_a_line_a_group_member_adds_to_a_checkout_they_can_write_never_runs(group_project: Path,
                                                                            tmp_path: Path) -> None:
    """A checkout cloned into a 2775 project directory whose group has another member: that member added a line to
    the job's cli.py, and `DRY_RUN=1 bash jobscripts/slurm.sh train` ran it as you (before, the proof file said
    "ran as uid 0"). The job's first Python refuses the checkout before it imports any of it."""
    checkout = a_checkout(group_project / "ddp")
    share_with_group(checkout)  # what a clone there under umask 002 gives: group-writable, the project's group
    proof = group_project / "planted-line-ran"
    cli = checkout / "app" / "host" / "launch" / "cli.py"
    planted = PLANTED_LINE.format(proof=str(proof))
    as_other_user("sh", "-c", 'printf "\\n%s\\n" "$2" >>"$1"', "append", str(cli), planted)
    assert planted in cli.read_text()
    result = dry_run(checkout, tmp_path, "train")
    assert not proof.exists(), proof.read_text()
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line == (f"slurm.sh: error: the checkout {checkout} can be written by the group {OTHER_USER} (gid "
                    f"{os.stat(checkout).st_gid}, mode 2775), who can then change the code the job runs as you; "
                    f"chmod -R g-w,o-w {checkout} (or clone the project into a directory only you can write)"), line
    assert result.stdout == "", "the job said something before it checked its checkout"


@needs_shared_group
def test_a_module_a_group_can_write_in_a_checkout_that_is_otherwise_yours_is_named(tmp_path: Path) -> None:
    """One file deep inside is writable by a group with other members (a `git pull` under umask 002 in a tree cloned
    under 022): the line names it."""
    checkout = a_checkout(tmp_path / "ddp")
    module = checkout / "app" / "train" / "loop.py"
    writable_by_a_group(module, 0o664)
    result = dry_run(checkout, tmp_path, "train")
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr
    assert result.stderr.startswith(f"slurm.sh: error: {module} in the checkout can be written by the group "), \
        result.stderr
    assert f"mode 0664), who can then change the code the job runs as you; chmod -R g-w,o-w {checkout}" in \
        result.stderr


@needs_other_user
def test_a_checkout_of_yours_alone_in_a_directory_a_group_can_write_is_refused(group_project: Path,
                                                                             tmp_path: Path) -> None:
    """Every file yours and 0644, but the project directory above lets a member rename ddp/ and put their own in
    its place, where the next job runs it."""
    checkout = a_checkout(group_project / "ddp")
    checkout.chmod(0o755)
    result = dry_run(checkout, tmp_path, "train")
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr
    assert result.stderr == (f"slurm.sh: error: the checkout {checkout} lies in {group_project}, which other users can "
                             "write (mode 2775): they can rename ddp/ and make their own in its place, and with it the "
                             "code the job runs as you; clone the project into a directory only you can write\n")


@needs_other_user
def test_bytecode_a_group_member_plants_for_the_checkouts_check_is_never_loaded(group_project: Path,
                                                                              tmp_path: Path) -> None:
    """Python loads `__pycache__/NAME.cpython-XY.pyc` instead of NAME.py when its header names the source's size
    and time: a group member who can write the checkout's __pycache__ would run theirs in place of the check itself,
    had the job imported it. The job reads the check's source as text."""
    checkout = a_checkout(group_project / "ddp")
    share_with_group(checkout)
    proof = group_project / "planted-bytecode-ran"
    owners = checkout / "app" / "host" / "common" / "owners.py"
    planted = PLANTED_LINE.format(proof=str(proof))
    stand_in = tmp_path / "owners.py"  # the planted code, as long as the check's source and as old
    stand_in.write_text(planted + "\n" + "#" * (owners.stat().st_size - len(planted) - 2) + "\n")
    os.utime(stand_in, ns=(owners.stat().st_atime_ns, owners.stat().st_mtime_ns))
    tag = subprocess.run([str(SYSTEM_PYTHON), "-c", "import sys; print(sys.implementation.cache_tag)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    bytecode = tmp_path / "owners.pyc"
    subprocess.run([str(SYSTEM_PYTHON), "-c", "import py_compile, sys; py_compile.compile(*sys.argv[1:3], "
                    "doraise=True)", str(stand_in), str(bytecode)], check=True)
    (owners.parent / "__pycache__").mkdir(exist_ok=True)
    share_with_group(owners.parent / "__pycache__")
    write_as_other_user(owners.parent / "__pycache__" / f"owners.{tag}.pyc", bytecode.read_bytes())
    # The header matches: an import of the module runs the planted code (what the job must never do)
    imported = subprocess.run([str(SYSTEM_PYTHON), "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                               "import app.host.common.owners", str(checkout)], capture_output=True, text=True)
    assert proof.exists(), imported.stderr
    proof.unlink()
    result = dry_run(checkout, tmp_path, "train", path="/usr/bin:/bin")
    assert not proof.exists(), proof.read_text()
    assert result.returncode == 2 and "slurm.sh: error: the checkout " in result.stderr, result.stderr


@pytest.mark.parametrize("group_writable", ["checkout", "RUN_DIR's parent", "IMAGE and its directory"])
@needs_other_user_and_python
def test_places_only_their_user_private_group_can_write_under_umask_002_are_accepted(group_writable: str) -> None:
    """RHEL-style user-private groups: each user's primary group has the user's name and no other member, and umask
    002 makes every new file and directory writable by that group of one. The other user's own checkout, run
    directory and image, each made so in turn, run as that user; the rest 0755 and 0644. Before, RUN_DIR and IMAGE
    were refused as "writable by other users" (and a checkout would have been, by a check of the mode bits)."""
    top = reachable_tmp()  # root's 0755 in /tmp: only root and the other user can rename what is in it
    try:
        home, bin_dir = top / "home", top / "bin"
        bin_dir.mkdir()
        stub = bin_dir / "apptainer"  # says the image is x86_64, as image_plan's stand-in does
        stub.write_text("#!/bin/sh\n[ \"$1\" = inspect ] && echo 'app.arch: x86_64'\nexit 0\n")
        stub.chmod(0o755)
        home.mkdir()
        a_checkout(home / "ddp")
        (home / "images").mkdir()
        (home / "images" / "app.sif").write_bytes(b"an image")
        made = {"checkout": [home / "ddp"], "RUN_DIR's parent": [home / "runs"],
                "IMAGE and its directory": [home / "images"]}[group_writable]
        (home / "runs").mkdir()
        user = pwd.getpwnam(OTHER_USER)
        for item in [home, *home.rglob("*")]:
            os.lchown(item, user.pw_uid, user.pw_gid)
            group_bit = any(item == place or place in item.parents for place in made)
            item.chmod((0o775 if item.is_dir() else 0o664) if group_bit else (0o755 if item.is_dir() else 0o644))
        assert grp.getgrgid(user.pw_gid).gr_name == OTHER_USER and grp.getgrgid(user.pw_gid).gr_mem == []
        env = ["env", "-i", f"PATH={bin_dir}:/usr/bin:/bin", f"HOME={home}", "DRY_RUN=1", "DRY_RUN_NODES=gpu01,gpu02",
               "GPUS_PER_NODE=4", f"IMAGE={home / 'images' / 'app.sif'}", f"RUN_DIR={home / 'runs' / '1'}",
               "FABRIC=none", "DDP_NODE_ARCH=x86_64"]
        result = subprocess.run(["runuser", "-u", OTHER_USER, "--", *env, "sh", "-c",
                                 'umask 002 && exec bash "$0" train', str(home / "ddp" / "jobscripts" / "slurm.sh")],
                                cwd=home, capture_output=True, text=True, timeout=120)
    finally:
        subprocess.run(["rm", "-rf", str(top)], check=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert "DRY_RUN=1: not running it" in result.stdout
