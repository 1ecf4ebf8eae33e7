"""The README's walkthroughs in their own words: MareNostrum 5's and GH200 with Slurm's on the three-node Slurm test
cluster (a GH200 node's CPU request scaled to the test nodes' 80), GH200 with PBS Pro's on the emulated PBS on top
of it (tests/slurm/pbs-emulation.sh, the qsub stand-in in tests/slurm/pbs-bin).

Each command is taken from the README and run unchanged but for its placeholders, by the job user in a login
shell of their own (`bash -c LINE`, an environment of PATH, HOME and what the test stands in, nothing of the
test's), from a directory laid out as the README says: the checkout's `jobscripts/` and `app/`, and `app.sif`
beside them. What the test cluster cannot be is stood in for through that environment, as
tests/jobscripts/test_jobscripts_slurm.py and test_jobscripts_pbs.py do: an ACC or Slingshot node's files
(`DDP_PROBE_ROOT`), the smoke image for the CUDA one, two GPUs per node, the regression workload for speed; the
preflight reads the real node, which has neither an HCA nor a Slingshot NIC, so it is off. Under PBS they reach the
job as the README says a `module load` does: through the script's `#PBS -V`.

The first job of the MareNostrum 5 and GH200 PBS walkthroughs is also the site test of its script (mn5.sh with
the site values on the command line; gh200-pbs.sh with PALS' mpiexec): one job makes both sets of assertions, as a
job of its own for each cost the machine-wide tier a whole two-node job.

Each walkthrough's `check` lines run first, as the README orders them: the image on the login node
(`singularity exec app.sif python -m app.check --node-only`) and the check job on every rank of two nodes. The check
reads the node it runs on, not the stand-ins: on the test cluster's nodes, which have no HCA and no Slingshot NIC,
and with the CPU image, which has no NCCL net plugin, a site profile's check job ends with the README's FAIL
verdict naming what the node lacks, exit code 7, and the line for any Slurm cluster with its PASS verdict and exit 0.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from app.host.common import exitcodes
from tests.docs.markdown import README, fenced_commands, quotes
from tests.fixtures.slurm import JOB_USER, REPO, Job, SlurmCluster
from tests.jobscripts.test_jobscripts_pbs import fake_slingshot_node
from tests.jobscripts.test_jobscripts_slurm import NODE1_IB0, assert_trained_on_both_nodes, rdzv_port

#: The README's placeholders, as a user fills them in; the test cluster takes any account, QOS and queue name
PLACEHOLDERS = {"<account>": "ehpc00", "<project>": "ehpc00", "<queue>": "workq", "$USER": JOB_USER}
#: What the test cluster is not, on every site: a workload of seconds, and no HCA or Slingshot NIC to preflight
STAND_INS = {"CONFIG": "regression", "PREFLIGHT": "0"}
#: What the GH200 check finds on the test cluster's nodes: no cxi device, and no aws-ofi-nccl in the CPU image
SLINGSHOT_LACKING = ("no /dev/cxi* device", "no libnccl-net*.so")


def walkthrough_section(title: str) -> str:
    text = README.read_text()
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _quoted_block(section: str) -> list[str]:
    """The lines of the section's first ```text block: a log as the README shows it."""
    block = section.split("```text", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def readme_command(title: str, pattern: str, **values: str) -> str:
    """The one command of the section TITLE that matches PATTERN, its placeholders filled in (`<jobid>`,
    `<old jobid>`, `<seq>` from VALUES, given as jobid=..., old_jobid=..., seq=...)."""
    found = [c for c in fenced_commands(walkthrough_section(title)) if re.fullmatch(pattern, c)]
    return filled(title, pattern, found, values)


def readme_pbs_command(title: str, pattern: str, **values: str) -> str:
    """The PBS counterpart the section gives in a Slurm command's comment (`squeue ...   # PBS: qstat ...`)."""
    found = re.findall(r"^[^#\n]*# PBS: (.+?)\s*$", walkthrough_section(title), re.M)
    return filled(title, pattern, [c for c in found if re.fullmatch(pattern, c)], values)


def filled(title: str, pattern: str, found: list[str], values: dict[str, str]) -> str:
    assert len(found) == 1, f"the README's {title} section has {len(found)} commands like {pattern!r}: {found}"
    line = found[0]
    fill = {**PLACEHOLDERS, **{f"<{name.replace('_', ' ')}>": value for name, value in values.items()}}
    for placeholder, value in fill.items():
        line = line.replace(placeholder, value)
    assert "<" not in line, f"a placeholder the test does not fill: {line}"
    return line


def as_the_user(cluster: SlurmCluster, checkout: Path, line: str, env: dict[str, str],
                **popen: object) -> subprocess.Popen:
    """`bash -c LINE` as the job user in CHECKOUT, in a login environment: PATH (the cluster's commands), HOME,
    USER and ENV; neither the test's environment nor the fixture's job defaults reach it."""
    login = {"PATH": cluster.env["PATH"], "HOME": pwd.getpwnam(JOB_USER).pw_dir, "USER": JOB_USER,
             "LOGNAME": JOB_USER, "LANG": "C.UTF-8", **env}
    command = ["runuser", "-u", JOB_USER, "--", "env", "-i", *(f"{k}={v}" for k, v in login.items()),
               "bash", "-c", line]
    return subprocess.Popen(command, cwd=checkout, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            **popen)


class Follower:
    """`tail -f` as the user runs it, read as it prints: tail looks at the log on its own clock (once a second where
    it has no inotify), so it is stopped only once it has printed the job's last line, or after timeout_s."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process, self.lines = process, []
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(process.stdout.readline, "")),
                                       daemon=True)
        self.reader.start()

    def stop_after(self, last: str, timeout_s: float = 30) -> str:
        deadline = time.monotonic() + timeout_s
        while not any(last in line for line in list(self.lines)) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.stop()
        return "".join(self.lines)

    def stop(self) -> None:
        os.killpg(self.process.pid, 15)
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)


def run_as_the_user(cluster: SlurmCluster, checkout: Path, line: str, env: dict[str, str]) -> str:
    """as_the_user to its end; its output (stdout and stderr), which must come with exit 0."""
    process = as_the_user(cluster, checkout, line, env)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, f"{line!r} exited {process.returncode}:\n{output}"
    return output


def submitted_job(output: str) -> str:
    """The job id of sbatch's 'Submitted batch job N'."""
    found = re.search(r"^Submitted batch job (\d+)$", output, re.M)
    assert found, f"sbatch did not say which job it submitted:\n{output}"
    return found[1]


def readme_checkout(cluster: SlurmCluster, image: Path) -> Path:
    """The checkout on the cluster as the README lays it out: `jobscripts/`, `app/` and `app.sif` beside them."""
    checkout = cluster.workdir()
    for part in ("jobscripts", "app"):
        (checkout / part).symlink_to(REPO / part)
    (checkout / "app.sif").symlink_to(image)
    return checkout


def mn5_checkout(cluster: SlurmCluster, image: Path) -> tuple[Path, dict[str, str]]:
    """The checkout, and the stand-ins for an ACC node: its HCA and IPoIB interface in sysfs."""
    checkout = readme_checkout(cluster, image)
    probe_root = checkout / "fake-node"
    for directory in ("sys/class/infiniband/mlx5_0/ports/1", "sys/class/net/ib0"):
        (probe_root / directory).mkdir(parents=True)
    shutil.chown(probe_root, JOB_USER, JOB_USER)
    return checkout, {**STAND_INS, "DDP_PROBE_ROOT": str(probe_root)}


def gh200_pbs_checkout(cluster: SlurmCluster, image: Path) -> tuple[Path, dict[str, str]]:
    """The checkout, and the stand-ins for a GH200 node under PBS Pro: two GPUs (no nvidia-smi to count them), the
    host's libfabric and libcxi, and PBS' commands (the qsub stand-in) first in PATH."""
    checkout = readme_checkout(cluster, image)
    probe_root = fake_slingshot_node(checkout / "fake-node")
    path = f"{cluster.pbs_bin}:{cluster.env['PATH']}"
    return checkout, {**STAND_INS, "GPUS_PER_NODE": "2", "DDP_PROBE_ROOT": str(probe_root), "PATH": path}


def finished(cluster: SlurmCluster, job_id: str, checkout: Path, log: str = "ddp-{job_id}.out") -> Job:
    """The job, waited for, which must have completed; LOG: its log's name (PBS': ddp.o{job_id})."""
    job = cluster.wait(job_id, checkout, log=log)
    assert job.state == "COMPLETED" and job.exit_code == "0:0", job.output[-6000:]
    return job


def assert_resumed_in(job: Job, old_run_dir: Path) -> None:
    """The job went on from the old run directory's newest snapshot: resumed there, or found that run complete
    (the trainer's "nothing to do"), and wrote no run directory of its own."""
    went_on = (f"resuming from {old_run_dir}/snapshots/", f"nothing to do: the run in {old_run_dir} is complete")
    assert any(line in job.output for line in went_on), job.output[-6000:]
    assert not job.run_dir.exists(), f"the resumed job wrote a run directory of its own, {job.run_dir}"


def readme_verdicts() -> dict[str, str]:
    """The check report's last line in the README's words (its MareNostrum 5 section), `VERDICT: PASS ...` and
    `VERDICT: FAIL (<class>): <first failure>. Fix: <remedy>. exit code N`, each placeholder as `...` (a trailing
    ` ...`: whatever follows, `: ...` included)."""
    forms = re.findall(r"`(VERDICT: [^`]+)`", walkthrough_section("MareNostrum 5"))
    assert [form.split()[1] for form in forms] == ["PASS", "FAIL"], f"the README's verdict forms: {forms}"
    return {form.split()[1]: re.sub(r"<[^>]+>", "...", form).replace(" ...", "...") for form in forms}


def check_verdict(output: str, verdict: str) -> int:
    """The exit code the check's one verdict line in OUTPUT names; the line must be the README's VERDICT form (PASS
    or FAIL)."""
    lines = [line for line in output.splitlines() if line.startswith("VERDICT: ")]
    assert len(lines) == 1, f"the check printed {len(lines)} verdict line(s):\n{output[-6000:]}"
    form = readme_verdicts()[verdict]
    assert quotes(form, lines), f"the verdict is not the README's {form!r}: {lines[0]}"
    return int(re.search(r"exit code (\d+)$", lines[0])[1])


def check_the_image_on_the_login_node(cluster: SlurmCluster, checkout: Path) -> None:
    """MareNostrum 5's first line after the module: the image's node check on the login node, which has no GPU and
    says so; `singularity` is the name MareNostrum 5's module gives the runtime (Apptainer installs it as its own
    second name, which the test machine's package does through Debian's alternatives)."""
    line = readme_command("MareNostrum 5", r"singularity exec app\.sif python -m app\.check --node-only")
    assert shutil.which("singularity", path=cluster.env["PATH"]), "no `singularity` in the cluster's PATH"
    output = run_as_the_user(cluster, checkout, line, {})
    assert "no GPU visible: CPU run with gloo" in output, output
    assert check_verdict(output, "PASS") == exitcodes.OK


def assert_site_check_job(job: Job, site: str, ranks: int, lacking: tuple[str, ...]) -> None:
    """A README check line's job with SITE's profile on the test cluster: app.check on RANKS ranks of both nodes, its
    report ending with the README's FAIL verdict and the job with the check's exit code (7: a node check failed), the
    FAIL lines naming what the test nodes lack (LACKING: no HCA, no Slingshot NIC, no NCCL net plugin in the CPU
    image), as a user would read it on a partition without the site's fabric."""
    step = next(line for line in job.output.splitlines() if " step: " in line)
    assert f"-m app.check --site {site}" in step, step
    assert f"node checks: {ranks} rank(s) on 2 node(s) reported" in job.output, job.output[-6000:]
    assert check_verdict(job.output, "FAIL") == exitcodes.PREFLIGHT, job.output[-6000:]
    assert job.state == "FAILED" and job.exit_code == f"{exitcodes.PREFLIGHT}:0", (job.state, job.exit_code)
    failed = [line for line in job.output.splitlines() if line.startswith("FAIL ")]
    for words in lacking:
        assert any(words in line for line in failed), f"no FAIL line names {words!r}: {failed}"


def assert_mn5_site_job(job: Job) -> None:
    """What mn5.sh does with the site values on the command line (-A, -q) and an ACC node's files: 2 nodes x the 4
    GPUs of its own #SBATCH --gres, InfiniBand's NCCL settings, the rendezvous on the head node's IPoIB address."""
    assert_trained_on_both_nodes(job, world_size=8)
    assert "2 node(s) x 4 process(es) per node (from the allocation)" in job.output, job.output[-6000:]
    for setting in ("NCCL_IB_DISABLE=0", "NCCL_IB_HCA=mlx5", "NCCL_NET=IB"):
        assert f"setting {setting} " in job.output, job.output[-6000:]
    assert (f"rendezvous on {NODE1_IB0}:{rdzv_port(job.output)} (ib0 of head node node1; node1 hosts the store"
            in job.output), job.output[-6000:]


def assert_gh200_pbs_site_job(job: Job, probe_root: Path) -> None:
    """What gh200-pbs.sh does under PBS Pro with PALS (its default launcher) on GH200 nodes: a node file of FQDNs
    (node1.ddptest.local, twice each) turned into one mpiexec process a node, the Slingshot NCCL settings, the
    rendezvous on the head node's hsn0, the host's libfabric bound into the image."""
    assert_trained_on_both_nodes(job)
    assert "step: mpiexec -n 2 --ppn 1" in job.output, job.output[-6000:]
    assert "launcher check: one process on each of node1 x1000c0s1b0n0" in job.output
    assert "on 2 node(s): node1.ddptest.local node2.ddptest.local, run directory" in job.output
    for setting in ("FI_PROVIDER=cxi", "NCCL_NET=AWS Libfabric", "NCCL_PROTO=^LL128"):
        assert f"setting {setting} " in job.output, job.output[-6000:]
    assert (f"rendezvous on 10.79.0.11:{rdzv_port(job.output)} (hsn0 of head node node1.ddptest.local; node1 hosts "
            "the store") in job.output
    assert f"--bind {probe_root}/opt/cray/libfabric/1.22.0:/opt/libfabric" in job.output


@pytest.mark.slurm
@pytest.mark.slow
def test_the_mn5_walkthrough_checks_trains_watches_reports_and_resumes_as_the_readme_says(
        slurm_cluster: SlurmCluster, smoke_image: Path) -> None:
    checkout, stand_ins = mn5_checkout(slurm_cluster, smoke_image)
    check_the_image_on_the_login_node(slurm_cluster, checkout)
    check = readme_command("MareNostrum 5", r"sbatch -A <account> -q \S+ jobscripts/mn5\.sh check")
    checked = slurm_cluster.wait(submitted_job(run_as_the_user(slurm_cluster, checkout, check, stand_ins)), checkout)
    assert_site_check_job(checked, "mn5", 8, ("no RDMA device",))

    submit = readme_command("MareNostrum 5", r"sbatch -A <account> -q \S+ jobscripts/mn5\.sh")
    job_id = submitted_job(run_as_the_user(slurm_cluster, checkout, submit, stand_ins))

    # Watch it: the queue lists the job, and the log can be followed while the job runs
    queue = run_as_the_user(slurm_cluster, checkout, readme_command("Watch it", r"squeue -u \$USER"), {})
    assert re.search(rf"^\s*{job_id}\s", queue, re.M), f"squeue does not list job {job_id}:\n{queue}"
    log = checkout / f"ddp-{job_id}.out"
    slurm_cluster.wait_for(log.exists, timeout_s=120, what=f"the log {log.name} the README names")
    follow = Follower(as_the_user(slurm_cluster, checkout, readme_command("Watch it", r"tail -f \S+", jobid=job_id),
                                  {}, start_new_session=True))
    try:
        job = finished(slurm_cluster, job_id, checkout)
    except BaseException:
        follow.stop()
        raise
    # tail -f starts with the log's last 10 lines: the job's first lines may be past by then, so the README's
    # lines are looked for in the whole log, and tail -f must have followed it to the end.
    followed = follow.stop_after("step finished with exit code 0")
    assert "step finished with exit code 0" in followed, f"tail -f did not follow the log to its end:\n{followed}"
    assert_mn5_site_job(job)
    for line in _quoted_block(walkthrough_section("Watch it")):
        assert quotes(line, job.output.splitlines()), f"the log has no README line {line!r}:\n{job.output[-6000:]}"
    listing = run_as_the_user(slurm_cluster, checkout, readme_command("Watch it", r"ls \S+", jobid=job_id), {})
    assert "summary.json" in listing.split(), listing

    # The report, on the login node's Python
    report = run_as_the_user(slurm_cluster, checkout,
                             readme_command("The report", r"python3 -m app\.report runs/<jobid>", jobid=job_id), {})
    assert re.search(rf"^runs/{re.escape(job_id)}: completed at step ", report, re.M), report

    # Resume: a new job in the old run directory
    resume = readme_command("Resume", r"RUN_DIR=runs/<old jobid> sbatch .*jobscripts/mn5\.sh", old_jobid=job_id)
    again = submitted_job(run_as_the_user(slurm_cluster, checkout, resume, stand_ins))
    resumed = finished(slurm_cluster, again, checkout)
    assert_resumed_in(resumed, checkout / "runs" / job_id)


@pytest.mark.slurm
@pytest.mark.slow
def test_the_gh200_pbs_walkthrough_checks_trains_watches_reports_and_resumes_as_the_readme_says(
        slurm_cluster: SlurmCluster, smoke_image: Path) -> None:
    section = "GH200 on Slingshot with PBS Pro"
    checkout, stand_ins = gh200_pbs_checkout(slurm_cluster, smoke_image)
    check = readme_command(section, r"qsub -A <project> -q <queue> -v WORKLOAD=check jobscripts/gh200-pbs\.sh")
    check_id = run_as_the_user(slurm_cluster, checkout, check, stand_ins).strip().partition(".")[0]
    pbs_log = readme_pbs_command("Watch it", r"tail -f \S+", seq="{job_id}").split()[-1]
    checked = slurm_cluster.wait(check_id, checkout, log=pbs_log)
    assert_site_check_job(checked, "slingshot-gh200", 4, SLINGSHOT_LACKING)

    submit = readme_command(section, r"qsub -A <project> -q <queue> jobscripts/gh200-pbs\.sh")
    job_id = run_as_the_user(slurm_cluster, checkout, submit, stand_ins).strip()
    seq, _, server = job_id.partition(".")
    assert seq.isdigit() and server, f"qsub printed {job_id!r}, not a PBS job id (15481.pbs01)"

    # Watch it: the log can be followed while the job runs
    watch = readme_pbs_command("Watch it", r"tail -f \S+", seq=seq)
    log = checkout / watch.split()[-1]
    slurm_cluster.wait_for(log.exists, timeout_s=120, what=f"the log {log.name} the README names")
    follow = Follower(as_the_user(slurm_cluster, checkout, watch, {}, start_new_session=True))
    try:
        job = finished(slurm_cluster, seq, checkout, log=log.name.replace(seq, "{job_id}"))
    except BaseException:
        follow.stop()
        raise
    followed = follow.stop_after("step finished with exit code 0")
    assert "completed at step " in followed and "step finished with exit code 0" in followed, followed[-6000:]
    job.run_dir = checkout / "runs" / job_id
    assert_gh200_pbs_site_job(job, Path(stand_ins["DDP_PROBE_ROOT"]))
    listing = run_as_the_user(slurm_cluster, checkout, readme_command("Watch it", r"ls \S+", jobid=job_id), {})
    assert "summary.json" in listing.split(), listing
    report = run_as_the_user(slurm_cluster, checkout,
                             readme_command("The report", r"python3 -m app\.report runs/<jobid>", jobid=job_id), {})
    assert re.search(rf"^runs/{re.escape(job_id)}: completed at step ", report, re.M), report

    # Resume: a new job in the old run directory, given with -v as the README says
    resume = readme_command("Resume", r"qsub .*-v RUN_DIR=runs/<old jobid> jobscripts/gh200-pbs\.sh", old_jobid=job_id)
    again = run_as_the_user(slurm_cluster, checkout, resume, stand_ins).strip().partition(".")[0]
    resumed = finished(slurm_cluster, again, checkout, log=log.name.replace(seq, "{job_id}"))
    resumed.run_dir = checkout / "runs" / f"{again}.{server}"
    assert_resumed_in(resumed, checkout / "runs" / job_id)


#: The test cluster's nodes have 80 CPUs (MareNostrum 5 ACC's); a GH200 node's 288 would be refused at submission
GH200_CPUS_ON_THE_TEST_CLUSTER = {"--cpus-per-gpu=72": "--cpus-per-gpu=20"}


def gh200_on_the_test_cluster(line: str) -> str:
    """A GH200 line with the CPUs it asks for scaled to the test cluster's nodes."""
    for words, stand_in in GH200_CPUS_ON_THE_TEST_CLUSTER.items():
        assert words in line, line
        line = line.replace(words, stand_in)
    return line


@pytest.mark.slurm
@pytest.mark.slow
def test_the_gh200_slurm_and_any_slurm_walkthrough_checks_and_trains_as_the_readme_says(
        slurm_cluster: SlurmCluster, smoke_image: Path) -> None:
    section = "GH200 on Slingshot with Slurm, and any Slurm cluster"
    checkout = readme_checkout(slurm_cluster, smoke_image)
    slingshot = {**STAND_INS, "DDP_PROBE_ROOT": str(fake_slingshot_node(checkout / "fake-node"))}
    check = gh200_on_the_test_cluster(readme_command(
        section, r"sbatch -N 2 --gres=gpu:4 .*FABRIC=slingshot,\S+ jobscripts/slurm\.sh check"))
    checked = slurm_cluster.wait(submitted_job(run_as_the_user(slurm_cluster, checkout, check, slingshot)), checkout)
    assert_site_check_job(checked, "slingshot-gh200", 8, SLINGSHOT_LACKING)

    gh200 = gh200_on_the_test_cluster(readme_command(
        section, r"sbatch -N 2 --gres=gpu:4 .*FABRIC=slingshot,\S+ jobscripts/slurm\.sh"))
    job_id = submitted_job(run_as_the_user(slurm_cluster, checkout, gh200, slingshot))
    job = finished(slurm_cluster, job_id, checkout)
    for setting in ("FI_PROVIDER=cxi", "NCCL_NET=AWS Libfabric"):
        assert f"setting {setting} " in job.output, job.output[-6000:]
    assert "completed at step " in job.output, job.output[-6000:]

    # Any Slurm cluster: the lines as they stand, the fabric detected on the head node (none: TCP sockets); the
    # check passes on every rank of both nodes
    check = readme_command(section, r"sbatch -N 2 --gres=gpu:1 --cpus-per-gpu=8 jobscripts/slurm\.sh check")
    checked = finished(slurm_cluster, submitted_job(run_as_the_user(slurm_cluster, checkout, check, STAND_INS)),
                       checkout)
    assert "node checks: 2 rank(s) on 2 node(s) reported" in checked.output, checked.output[-6000:]
    assert check_verdict(checked.output, "PASS") == exitcodes.OK
    anywhere = readme_command(section, r"sbatch -N 2 --gres=gpu:1 --cpus-per-gpu=8 jobscripts/slurm\.sh")
    job = finished(slurm_cluster, submitted_job(run_as_the_user(slurm_cluster, checkout, anywhere, STAND_INS)),
                   checkout)
    assert "completed at step " in job.output, job.output[-6000:]


def test_the_walkthrough_names_the_log_and_run_directory_the_job_writes() -> None:
    section = walkthrough_section("Watch it")
    assert "ddp-<jobid>.out" in section and "runs/<jobid>" in section
    assert Path(REPO / "jobscripts" / "mn5.sh").read_text().count("#SBATCH --output=%x-%j.out") == 1
