"""gh200-pbs.sh (the PBS job, app/host/launch/pbs_job.py) under PBS Pro and Cray PALS as they behave.

Fast tests first: the pbsdsh launcher and the launch check as the PBS job plans them (PbsSide.launch), with stubs
that copy what
OpenPBS pbsdsh and HPE PALS mpiexec do (tests/slurm/pbs-bin has the full stand-ins, with their sources). Then
the job script on the real Slurm test cluster under the emulated PBS job (tests/slurm/pbs-emulation.sh): a node
file of FQDNs, one line per MPI slot, the stand-ins for mpiexec, pbsdsh, qsub and qstat.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures.slurm import REPO, SlurmCluster
from tests.host.launch.job_parts import Ran, job_parts
from tests.jobscripts.test_jobscripts_slurm import (
    TRAIN_ENV,
    assert_completed,
    assert_trained_on_both_nodes,
    rdzv_port,
)

JOBSCRIPTS = REPO / "jobscripts"
PBS_EMULATION = REPO / "tests" / "slurm" / "pbs-emulation.sh"
PBS_BIN = REPO / "tests" / "slurm" / "pbs-bin"
#: The trainer's line on resuming (app/train/snapshot/manager.py)
RESUMED = re.compile(r"resuming from \S+ at step (?P<step>\d+) \(epoch \d+")
#: The log of a job submitted with qsub, as PBS names it: <job name>.o<sequence number> in the submit directory
PBS_LOG = "ddp.o{job_id}"
#: The two-node PBS job (id 7.pbs) the fast tests plan, as tests/host/launch/job_parts.py takes it
JOB = {"script": "gh200-pbs.sh", "scheduler": "pbs", "job_id": "7.pbs", "nodes": "node1.example.org,node2.example.org"}


def node_file(path: Path, *nodes: str, slots: int = 2) -> Path:
    """A PBS_NODEFILE as PBS Pro writes it: each node once per MPI slot (mpiprocs)."""
    path.write_text("".join(f"{node}\n" * slots for node in nodes))
    return path


def stub(bin_dir: Path, name: str, text: str) -> Path:
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / name
    path.write_text(text)
    path.chmod(0o755)
    return path


#: OpenPBS pbsdsh as a TM task sees it (src/cmds/pbsdsh.c, src/resmom/start_exec.c start_process()): getopt
#: "c:n:svo" (anything else: "invalid option", usage, exit 1); -n INDEX spawns one task on the INDEX-th line of
#: PBS_NODEFILE; the task gets the job's initial environment (no caller's), starts in $HOME, PBS_NODENUM is
#: its mom's index (the node's, in node-file order); its stdout goes to the job's output file, not pbsdsh's;
#: pbsdsh exits 0 whatever the task returned, and says "pbsdsh: task 0x%08X exit status %d" of one that failed
#: (wait_for_task()); SIGTERM it passes to the task's whole session (tm_kill: src/resmom/linux/mom_mach.c
#: kill_session), then it exits 1 at once. Every call is recorded in $PBSDSH_CALLS.
PBSDSH = r"""#!/bin/bash
echo "$1 $2 $3" >>"$PBSDSH_CALLS"
if [[ $1 != -n || $3 != -- ]]; then
    echo "pbsdsh: invalid option -- '${1#-}'" >&2
    echo "Usage: pbsdsh [-c copies][-s][-v][-o] -- program [args...]" >&2
    exit 1
fi
index=$2
shift 3
mom=$(awk -v want="$index" 'BEGIN {moms = 0} NF {if (!($1 in seen)) seen[$1] = moms++
                                                 if (n++ == want) {print seen[$1]; exit}}' "$PBS_NODEFILE")
cd "$HOME" || exit 2
setsid env -i HOME="$HOME" PATH=/bin:/usr/bin PBS_NODENUM="$mom" PBS_TASKNUM="0000000$index" \
    "$@" >>"$JOB_OUTPUT" 2>&1 &
task=$!
trap 'printf "pbsdsh: killing task 0x%08X signal %d\n" 0 15; kill -TERM -- "-$task"; exit 1' TERM
status=0
wait "$task" || status=$?
((status == 0)) || printf "pbsdsh: task 0x%08X exit status %d\n" 0 "$status"
exit 0
"""


@pytest.fixture
def pbs_job(tmp_path: Path) -> dict[str, str]:
    """A two-node PBS job's environment under LAUNCHER=pbsdsh: node file, run directory, pbsdsh stub, job output
    file."""
    stub(tmp_path / "bin", "pbsdsh", PBSDSH)
    return {"PBS_NODEFILE": str(node_file(tmp_path / "nodefile", "node1.example.org", "node2.example.org")),
            "PBS_JOBID": "7.pbs", "PBS_NODENUM": "0", "PBS_TASKNUM": "1", "RUN_DIR": str(tmp_path / "run"),
            "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "PBSDSH_CALLS": str(tmp_path / "calls"),
            "JOB_OUTPUT": str(tmp_path / "job.out"), "DDP_NODES_LIST": "node1.example.org node2.example.org",
            "LAUNCHER": "pbsdsh", "FABRIC": "none"}


def pbsdsh_launcher(env: dict[str, str], cwd: Path) -> Ran:
    """The PBS job planned under ENV (LAUNCHER=pbsdsh): found["launch"]["per_node"] is the one-task-a-node launcher
    (this checkout's pbsdsh-run with the job's facts: tests/host/launch/test_pbs_job.py pins its words), ran.env the
    environment the job leaves for its steps."""
    ran = job_parts(["launch"], env, cwd=cwd, submit_dir=str(cwd), **JOB)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran


def through_pbsdsh(ran: Ran, command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """The shell COMMAND on every node through the job's pbsdsh launcher, in the environment the job left (umask
    022, as a login shell leaves it)."""
    return subprocess.run([*ran.found["launch"]["per_node"], "/bin/sh", "-c", command], env={**ran.env, **env},
                          cwd=cwd, capture_output=True, text=True, timeout=60, umask=0o022)


#: The PBS job's launch check (JobRun.launch_check: app/host/launch/launch_check.py) through the launcher "$@", for the
#: nodes of DDP_NODES_LIST; exit 2 with its one line when it fails
LAUNCH_CHECK = """import os, sys
from app.host.common.errors import UsageError
from app.host.launch.launch_check import passed, run_launch_check
nodes = os.environ["DDP_NODES_LIST"].split()
try:
    print(passed(run_launch_check(sys.argv[1:], nodes, len(nodes)), len(nodes)))
except UsageError as error:
    print("gh200-pbs.sh: error: " + str(error), file=sys.stderr)
    sys.exit(2)
"""


def launch_check(launcher: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The job's launch check through LAUNCHER, in ENV."""
    return subprocess.run([sys.executable, "-c", LAUNCH_CHECK, *launcher],
                          env={"PATH": os.environ["PATH"], **env, "PYTHONPATH": str(REPO)}, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def test_the_pbsdsh_launcher_starts_one_task_per_node_not_per_node_file_line(pbs_job: dict[str, str],
                                                                            tmp_path: Path) -> None:
    """TORQUE's `pbsdsh -u` is an invalid option on OpenPBS; one `pbsdsh -n INDEX` per node."""
    ran = pbsdsh_launcher(pbs_job, tmp_path)
    result = launch_check(ran.found["launch"]["per_node"], {**ran.env, "DDP_NODES_LIST": pbs_job["DDP_NODES_LIST"]},
                          cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = Path(pbs_job["PBSDSH_CALLS"]).read_text().splitlines()
    assert sorted(calls) == ["-n 0 --", "-n 2 --"]
    # Each task names its node by the node file's name (its PBS_NODENUM), not the batch script's node 0
    assert "launcher check: one process on each of" in result.stdout


def test_the_pbsdsh_tasks_get_the_jobs_store_secret(pbs_job: dict[str, str], tmp_path: Path) -> None:
    """pbsdsh's tasks read the batch script's environment from a file: the store's secret is in it. That the file
    is its owner's alone and gone after the step: test_jobscripts_shared_cluster.py."""
    ran = pbsdsh_launcher(pbs_job, tmp_path)
    result = through_pbsdsh(ran, 'echo "secret=$DDP_STORE_SECRET"', tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    batch = ran.env["DDP_STORE_SECRET"]
    assert re.fullmatch(r"\w+", batch)
    assert [line for line in result.stdout.splitlines() if line.startswith("secret=")] == [f"secret={batch}"] * 2


def test_the_pbsdsh_tasks_get_the_jobs_snapshot_grace(pbs_job: dict[str, str], tmp_path: Path) -> None:
    """A pbsdsh task starts with the job's initial environment, not the step's: the grace the node wrapper and
    torchrun read (TORCH_ELASTIC_SHUTDOWN_TIMEOUT, SHUTDOWN_TIMEOUT_S) must reach it through the launcher's
    environment file, or every node falls back to 30 s."""
    ran = pbsdsh_launcher({**pbs_job, "SHUTDOWN_TIMEOUT_S": "90"}, tmp_path)
    result = through_pbsdsh(ran, 'echo "grace=${TORCH_ELASTIC_SHUTDOWN_TIMEOUT:-unset}"', tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("grace=")] == ["grace=90"] * 2


def test_the_pbsdsh_launcher_returns_the_highest_exit_code_of_its_tasks(pbs_job: dict[str, str],
                                                                       tmp_path: Path) -> None:
    """pbsdsh itself exits 0 whatever its tasks returned: the launcher must not."""
    ran = pbsdsh_launcher(pbs_job, tmp_path)
    result = through_pbsdsh(ran, 'echo "out of $PBS_NODENUM in $PWD"; exit $((PBS_NODENUM + 3))', tmp_path)
    assert result.returncode == 4, result.stdout + result.stderr
    # The tasks' stdout comes back to the caller, from the submit directory, not $HOME
    assert f"out of 0 in {tmp_path}\n" in result.stdout and f"out of 1 in {tmp_path}\n" in result.stdout


def test_a_failed_pbsdsh_task_ends_the_other_nodes_tasks_instead_of_leaving_them_waiting(pbs_job: dict[str, str],
                                                                                        tmp_path: Path) -> None:
    """TM kills nothing: a node whose ranks had finished sat in torchrun's exit barrier (300 s) for a node that
    failed. The launcher ends the other tasks through pbsdsh, as srun --kill-on-bad-exit does, and waits for
    their codes; the step's code is the failed node's, not the SIGTERM's."""
    ran = pbsdsh_launcher(pbs_job, tmp_path)
    finished_waiting = ('if [ "$PBS_NODENUM" = 1 ]; then exit 10; fi; '
                        'trap \'echo "node 0 ended by TERM"; exit 143\' TERM; sleep 300 & wait')
    result = through_pbsdsh(ran, finished_waiting, tmp_path)
    assert result.returncode == 10, result.stdout + result.stderr
    assert "node 0 ended by TERM\n" in result.stdout
    assert ("gh200-pbs.sh: error: pbsdsh: the task on node-file line 2 failed (exit 10): ending the tasks on "
            "node-file line(s) 0, which would wait for it") in result.stderr.splitlines()
    assert "no exit code" not in result.stderr


def test_the_launcher_check_names_a_missed_node_as_the_node_file_does_from_pals_nodeid(tmp_path: Path) -> None:
    """Cray PALS exports PALS_NODEID (the node's index in the host list, i.e. the node file's order) and passes
    the batch script's own PBS_NODENUM=0 on to every rank; no SLURMD_NODENAME. A launch that reached only
    node 0 names node 1 by its node-file name, though the nodes call themselves otherwise (an xname)."""
    launch = stub(tmp_path / "bin", "mpiexec-one-node",
                  '#!/bin/bash\nd=$(mktemp -d); printf \'#!/bin/sh\\necho x1000c0s0b0n0\\n\' >"$d/uname"; '
                  'chmod +x "$d/uname"; PALS_NODEID=0 PBS_NODENUM=0 PATH="$d:$PATH" "$@"\n')
    result = launch_check([str(launch)], {"DDP_NODES_LIST": "node1.example.org node2.example.org"})
    assert result.returncode == 2
    assert "started 1 process(es) on 1 node(s) (none on node2.example.org) but this job has 2 nodes" in result.stderr


def test_the_head_node_hosts_the_store_even_when_the_rendezvous_falls_back_to_its_node_file_name(
        tmp_path: Path) -> None:
    """Without a fast interface the endpoint is the node file's name for the head node (an
    FQDN on HPE systems), which torchrun need not recognise as its own: the batch script runs on the head
    node, so this node hosts the store (the owner, node 0) unconditionally."""
    bin_dir = tmp_path / "bin"
    stub(bin_dir, "uname", '#!/bin/sh\n[ "$1" = -n ] && echo x1000c0s0b0n0\n')
    result = job_parts(["meet"], {"PATH": f"{bin_dir}:/usr/bin:/bin", "RDZV_IFACES": "no-such-nic0"}, **JOB)
    assert result.found.get("meet") == ["node1.example.org", "x1000c0s0b0n0"], result.stdout + result.stderr


def run_script(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """bash jobscripts/gh200-pbs.sh inside a (fake) PBS job, DRY_RUN=1: everything up to the launch."""
    full_env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "DRY_RUN": "1", "PBS_JOBID": "7.pbs",
                "PBS_O_WORKDIR": str(cwd), "DDP_JOBSCRIPTS": str(JOBSCRIPTS), "IMAGE": "none",
                "GPUS_PER_NODE": "4", "FABRIC": "none", **env}
    return subprocess.run(["bash", str(JOBSCRIPTS / "gh200-pbs.sh")], env=full_env, cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def test_a_node_file_with_names_no_host_answers_to_stops_before_any_rank_starts(tmp_path: Path) -> None:
    nodefile = node_file(tmp_path / "nodefile", "node1.invalid", "node2.invalid")
    result = run_script({"PBS_NODEFILE": str(nodefile)}, tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.splitlines() == [
        f"gh200-pbs.sh: error: PBS_NODEFILE={nodefile} lists names no host answers to (getent hosts finds none): "
        "node1.invalid; PBS writes the job's own nodes there: submit with qsub and leave PBS_NODEFILE as PBS sets "
        "it, or give a file of names that resolve on the nodes (check one: getent hosts node1.invalid)"]
    assert "step:" not in result.stdout


def test_a_node_file_with_one_name_no_host_answers_to_names_that_one(tmp_path: Path) -> None:
    """The head resolves, one node further down does not: one look-up for all, then the culprit named."""
    stub(tmp_path / "bin", "getent", '#!/bin/sh\nshift; for n; do case $n in *typo*) exit 2;; esac; done\n')
    nodes = ["node1.example.org", "node2.example.org", "node3.exmaple-typo.org", "node4.example.org"]
    result = run_script({"PBS_NODEFILE": str(node_file(tmp_path / "nodefile", *nodes)),
                         "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}, tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "(getent hosts finds none): node3.exmaple-typo.org; PBS writes" in result.stderr


def test_the_job_log_gives_the_node_count_and_the_first_few_nodes_not_all_of_them(tmp_path: Path) -> None:
    stub(tmp_path / "bin", "getent", "#!/bin/sh\nexit 0\n")  # every name resolves
    nodes = [f"x1000c0s{i}b0n0.hsn.example.org" for i in range(40)]
    result = run_script({"PBS_NODEFILE": str(node_file(tmp_path / "nodefile", *nodes)),
                         "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (f"job 7.pbs on 40 node(s): {' '.join(nodes[:4])} ... (40 in all), run directory" in result.stdout)
    assert nodes[4] not in result.stdout.split("run directory")[0]


def test_openpbs_pbsdsh_refuses_torques_u_option() -> None:
    """The stand-in keeps OpenPBS's getopt (src/cmds/pbsdsh.c "c:n:svo"): -u is TORQUE's alone."""
    result = subprocess.run([str(PBS_BIN / "pbsdsh"), "-u", "--", "true"], capture_output=True, text=True,
                            env={"PATH": os.environ["PATH"], "PBS_ENVIRONMENT": "PBS_BATCH"}, timeout=30)
    assert result.returncode == 1
    assert result.stderr.splitlines()[:2] == ["pbsdsh: invalid option -- 'u'",
                                               "Usage: pbsdsh [-c copies][-s][-v][-o] -- program [args...]"]


def pbs_directives(script: Path) -> list[list[str]]:
    """The `#PBS` lines qsub reads: the words after `#PBS`."""
    return [line.split()[1:] for line in script.read_text().splitlines() if line.startswith("#PBS ")]


def test_the_pbs_script_takes_the_submit_environment_and_writes_its_log_as_it_runs() -> None:
    """qsub passes no environment without -V (a `module load` before qsub would not reach the job), and PBS
    stages the output file to the submit directory only at the end unless -k names d (direct write)."""
    directives = pbs_directives(JOBSCRIPTS / "gh200-pbs.sh")
    assert ["-V"] in directives, directives
    keep = [words[1] for words in directives if words[0] == "-k"]
    assert keep and "d" in keep[-1] and "o" in keep[-1], directives


# ------------------------------------------------------------------------ on the Slurm test cluster
def fake_slingshot_node(root: Path) -> Path:
    """A fake node tree with the host's libfabric and libcxi, which the job binds into the container.

    No fake /dev/cxi0: Apptainer binds a device onto the host's /dev, where a fake one does not exist
    (the binds of /dev/cxi* are checked in tests/host/launch/test_job_parts.py)."""
    for directory in ("opt/cray/libfabric/1.22.0/lib64", "usr/lib64"):
        (root / directory).mkdir(parents=True)
    (root / "usr/lib64/libcxi.so.1").touch()
    return root


@pytest.fixture(scope="module")
def image_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """IMAGE for the jobs: the smoke image, or none (host torchrun) with DDP_SLURM_TEST_IMAGE=none."""
    if os.environ.get("DDP_SLURM_TEST_IMAGE") == "none":
        return {"IMAGE": "none"}
    return {"IMAGE": str(request.getfixturevalue("smoke_image"))}


@pytest.mark.slurm
@pytest.mark.slow
def test_pbs_script_trains_across_both_nodes_under_emulated_pbs_with_pbsdsh(slurm_cluster: SlurmCluster,
                                                                            image_env: dict[str, str]) -> None:
    """A node file of FQDNs (node1.ddptest.local, twice each), OpenPBS' pbsdsh (LAUNCHER=pbsdsh). PALS' mpiexec,
    the default, trains the README's GH200 PBS walkthrough, which makes this test's assertions of its first job
    (tests/docs/test_readme_walkthrough.py, assert_gh200_pbs_site_job)."""
    workdir = slurm_cluster.workdir()
    probe_root = fake_slingshot_node(workdir / "fake-node")
    job_id = slurm_cluster.submit(workdir, str(PBS_EMULATION), env={
        **TRAIN_ENV, **image_env, "LAUNCHER": "pbsdsh", "WORKLOAD": "train train.max_steps=20",
        # The preflight would read the real node, which has no Slingshot NIC or OFI plugin
        "DDP_PROBE_ROOT": str(probe_root), "PREFLIGHT": "0"})
    job = slurm_cluster.wait(job_id, workdir)
    job.run_dir = workdir / "runs" / f"{job_id}.pbs-emulation"
    assert_completed(job)
    assert_trained_on_both_nodes(job)
    assert "pbsdsh: one task per node, pbsdsh -n LINE for the first node-file line of each: 0 2" in job.output
    assert "launcher check: one process on each of node1 x1000c0s1b0n0" in job.output
    assert "on 2 node(s): node1.ddptest.local node2.ddptest.local, run directory" in job.output
    for setting in ("FI_PROVIDER=cxi", "NCCL_NET=AWS Libfabric", "NCCL_PROTO=^LL128"):
        assert f"setting {setting} " in job.output
    assert (f"rendezvous on 10.79.0.11:{rdzv_port(job.output)} (hsn0 of head node node1.ddptest.local; node1 hosts "
            "the store") in job.output
    if image_env["IMAGE"] != "none":
        assert f"--bind {probe_root}/opt/cray/libfabric/1.22.0:/opt/libfabric" in job.output


#: The second node's ranks fail at once with their own code; the first node's finish, and its torchrun then waits
#: in its exit barrier for the second's agent, which never comes
SECOND_NODE_FAILS = """import os, sys
sys.exit(10 if os.environ["GROUP_RANK"] == "1" else 0)
"""


@pytest.mark.slurm
@pytest.mark.slow
def test_a_pbs_job_under_pbsdsh_ends_with_the_failed_nodes_code_instead_of_waiting_out_the_others_barrier(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    """TM kills nothing: node 1's torchrun sat in its exit barrier (300 s, fixed) after node 2's ranks failed, and
    the job with it. The launcher ends node 1's task once node 2's fails, as srun --kill-on-bad-exit does; the job
    ends with node 2's code (the wait below gives up at 240 s)."""
    workdir = slurm_cluster.workdir()
    (workdir / "second_node_fails.py").write_text(SECOND_NODE_FAILS)
    job_id = slurm_cluster.submit(workdir, str(PBS_EMULATION), env={
        **TRAIN_ENV, **image_env, "LAUNCHER": "pbsdsh", "WORKLOAD": "second_node_fails.py",
        "DDP_PROBE_ROOT": str(fake_slingshot_node(workdir / "fake-node")), "PREFLIGHT": "0"})
    job = slurm_cluster.wait(job_id, workdir)
    assert ("pbsdsh: the task on node-file line 2 failed (exit 10): ending the tasks on node-file line(s) 0, which "
            "would wait for it") in job.output, job.output[-4000:]
    assert "step finished with exit code 10" in job.output, job.output[-4000:]
    assert job.exit_code == "10:0", f"{job.state} {job.exit_code}\n{job.output[-4000:]}"


@pytest.mark.slurm
@pytest.mark.slow
def test_a_pbs_node_file_no_host_answers_to_stops_the_job_with_the_fix_before_any_rank(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, str(PBS_EMULATION), env={
        **TRAIN_ENV, **image_env, "FABRIC": "none", "PBS_EMULATION_NODE_DOMAIN": "invalid"})
    job = slurm_cluster.wait(job_id, workdir)
    assert job.state == "FAILED" and job.exit_code == "2:0", job.output[-4000:]
    assert "lists names no host answers to (getent hosts finds none): node1.invalid;" in job.output
    assert "step:" not in job.output


@pytest.mark.slurm
@pytest.mark.slow
def test_a_pbs_job_resubmitted_at_its_walltime_keeps_every_qsub_option_and_resumes(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    """The Olivia tutorial's submission (account, queue, select with a site resource, scatter placement) with a short
    walltime: the timer stops the job for a snapshot 40 s before the limit, the job resubmits itself, and
    the resubmitted job must carry every option (read back as `qstat -f` shows them) and resume."""
    workdir = slurm_cluster.workdir()
    probe_root = fake_slingshot_node(workdir / "fake-node")
    options = {"Account_Name": "ehpc00", "queue": "blanca",
               "Resource_List.select": "2:ncpus=288:ngpus=4:sales_op=blanca", "Resource_List.place": "scatter",
               "Resource_List.walltime": "00:01:40"}
    first = slurm_cluster.qsub(
        workdir, "-A", options["Account_Name"], "-q", options["queue"],
        "-l", f"select={options['Resource_List.select']}", "-l", f"place={options['Resource_List.place']}",
        "-l", f"walltime={options['Resource_List.walltime']}", str(JOBSCRIPTS / "gh200-pbs.sh"),
        # No preflight: the 60 s before the timer fires are for training to reach a snapshot (it joined its
        # process group 10 to 18 s into the job on a loaded machine; a CI run under heavy load was still
        # importing torch when a timer at 40 s fired). 40 s after it are for the snapshot and the resubmission.
        env={**TRAIN_ENV, **image_env, "WORKLOAD": "train train.epochs=400", "PREEMPT_MARGIN_S": "40",
             "DDP_PROBE_ROOT": str(probe_root), "PREFLIGHT": "0"})
    try:
        job = slurm_cluster.wait(first, workdir, timeout_s=180, log=PBS_LOG)
        assert "got SIGUSR1" in job.output, job.output[-6000:]
        assert "preempted at step " in job.output, job.output[-6000:]
        preempted_at = int(job.output.split("preempted at step ")[1].split()[0])
        resubmitted = [p.name for p in (workdir / ".pbs-state").iterdir() if not p.name.startswith(f"{first}.")]
        assert len(resubmitted) == 1, job.output[-4000:]
        second = resubmitted[0].removesuffix(".pbs-emulation")
        attributes = slurm_cluster.qstat(workdir, resubmitted[0])
        assert {k: attributes.get(k) for k in options} == options
        log = workdir / PBS_LOG.format(job_id=second)
        # The whole line, up to its epoch: the job is cancelled next, and a line the relays had only half written
        # would stay half written
        slurm_cluster.wait_for(lambda: RESUMED.search(log.read_text() if log.exists() else ""), timeout_s=120,
                               what="the resubmitted job to resume")
    finally:
        cancel_the_chain(slurm_cluster, workdir)
    assert RESUMED.search(log.read_text())["step"] == str(preempted_at)
    assert f"runs/{first}.pbs-emulation/snapshots" in log.read_text(), "resumed from another run directory"


def cancel_the_chain(slurm_cluster: SlurmCluster, workdir: Path) -> None:
    """Every job of a resubmitting chain: one left running resubmits itself at its walltime and holds the nodes. A job
    being cancelled may have resubmitted just before, so its successor is looked for once every job has left."""
    cancelled: set[str] = set()
    for _ in range(5):
        jobs = {state.name.removesuffix(".pbs-emulation")
                for state in (workdir / ".pbs-state").glob("*.pbs-emulation")} - cancelled
        if not jobs:
            return
        for job_id in jobs:
            slurm_cluster.run("scancel", job_id)
        for job_id in jobs:
            slurm_cluster.wait_for(lambda job_id=job_id: not slurm_cluster.state(job_id), timeout_s=60,
                                   what=f"job {job_id} to leave the queue")
        cancelled |= jobs


SHOW_ENVIRONMENT = """#!/bin/bash
#PBS -N ddp
{directives}
echo "MODULE_VAR=${{MODULE_VAR:-unset}} GIVEN=${{GIVEN:-unset}}"
echo "PATH=$PATH"
echo "PBS_O_PATH=$PBS_O_PATH"
echo "PBS_O_WORKDIR=$PBS_O_WORKDIR"
command -v mpiexec
touch "$PBS_O_WORKDIR/started"
for _ in $(seq 600); do [[ -e $PBS_O_WORKDIR/release ]] && break; sleep 0.2; done
echo "second line"
"""


def submit_environment_job(slurm_cluster: SlurmCluster, directives: str, *qsub_options: str,
                           held: bool = False) -> tuple[str, Path]:
    """A job that prints what reached it, submitted after `module load` put MODULE_VAR and a PATH entry in
    the submitter's environment; returns the Slurm job id and the submit directory. HELD: the job waits
    (up to 2 minutes) after its first lines until the submit directory holds a file `release`."""
    workdir = slurm_cluster.workdir()
    script = workdir / "show-environment.sh"
    script.write_text(SHOW_ENVIRONMENT.format(directives=directives))
    if not held:
        (workdir / "release").touch()
    path = f"/opt/module/bin:{slurm_cluster.env['PATH']}"
    job_id = slurm_cluster.qsub(workdir, *qsub_options, "-v", "GIVEN=yes", str(script),
                                env={"MODULE_VAR": "loaded", "PATH": path})
    return job_id, workdir


@pytest.mark.slurm
def test_qsub_without_V_passes_only_v_variables_and_the_submitters_values_as_pbs_o(
        slurm_cluster: SlurmCluster) -> None:
    """qsub.1B: -v adds variables to those "automatically exported" (PBS_O_*, PBS_JOBID, ...); only -V exports
    "all environment variables ... in the user's login environment where qsub is run"."""
    job_id, workdir = submit_environment_job(slurm_cluster, "")
    job = slurm_cluster.wait(job_id, workdir, log=PBS_LOG)
    assert "MODULE_VAR=unset GIVEN=yes" in job.output, job.output
    path = job.output.split("PATH=", 1)[1].splitlines()[0]
    assert "/opt/module/bin" not in path, path
    assert "/opt/module/bin:" in job.output.split("PBS_O_PATH=", 1)[1].splitlines()[0], job.output
    assert f"PBS_O_WORKDIR={workdir}" in job.output
    assert "/pbs-bin/mpiexec" in job.output  # the site's PATH still finds the launcher


@pytest.mark.slurm
def test_qsub_with_V_passes_the_submitters_environment(slurm_cluster: SlurmCluster) -> None:
    job_id, workdir = submit_environment_job(slurm_cluster, "#PBS -V")
    job = slurm_cluster.wait(job_id, workdir, log=PBS_LOG)
    assert "MODULE_VAR=loaded GIVEN=yes" in job.output, job.output
    assert "/opt/module/bin:" in job.output.split("PATH=", 1)[1].splitlines()[0], job.output


@pytest.mark.slurm
def test_the_output_reaches_the_submit_directory_at_the_end_unless_k_asks_for_direct_write(
        slurm_cluster: SlurmCluster) -> None:
    """qsub.1B: by default PBS copies the output file to the submit directory; -k d writes it "directly to
    [its] final destination", so it can be read while the job runs."""
    staged_id, staged_dir = submit_environment_job(slurm_cluster, "", held=True)
    direct_id, direct_dir = submit_environment_job(slurm_cluster, "#PBS -k oed", held=True)
    try:
        slurm_cluster.wait_for(lambda: (staged_dir / "started").exists() and (direct_dir / "started").exists(),
                               timeout_s=120, what="both jobs to start")
        time.sleep(1)
        assert not (staged_dir / PBS_LOG.format(job_id=staged_id)).exists(), "written before the job ended"
        running = (direct_dir / PBS_LOG.format(job_id=direct_id)).read_text()
        assert "GIVEN=yes" in running and "second line" not in running, running
    finally:
        for workdir in (staged_dir, direct_dir):
            (workdir / "release").touch()
    for job_id, workdir in ((staged_id, staged_dir), (direct_id, direct_dir)):
        job = slurm_cluster.wait(job_id, workdir, log=PBS_LOG)
        assert "second line" in job.output, job.output
