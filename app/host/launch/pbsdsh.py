"""A command once on every node of a PBS job through OpenPBS pbsdsh, and the highest of their exit codes
(`python3 -m app.launch pbsdsh-run`, the PBS job's launcher under LAUNCHER=pbsdsh: app/host/launch/pbs_job.py; standard
library only).

pbsdsh (OpenPBS src/cmds/pbsdsh.c, getopt "c:n:svo"; "c:n:h:svo" on master) has no "once per node": TORQUE's -u
is an invalid option there, and without -n it "runs one task for each line in the $PBS_NODEFILE" (pbsdsh(1B)),
i.e. one per MPI slot. So one `pbsdsh -n INDEX` per node, INDEX the node's first line in the node file, all at
once. What a TM task sees is not the caller's (start_process(), src/resmom/start_exec.c): the job's initial
environment, started in $HOME, its stdout and stderr to the job's output files (or nowhere with nodemux), and
pbsdsh exits 0 whatever the task returned. Hence TASK: it loads the step's environment from a file (every exported
variable, secrets included: 0600 in a private directory, deleted with it when the step ends), enters the caller's
directory, and writes the command's stdout and exit code to files in RUN_DIR (shared by every node; one per node:
appends from several nodes to one file may interleave on NFS), whose lines are copied to this stdout as they grow
(what the launcher check reads) and which give the exit code. Cost: N pbsdsh processes here and N open files (the
soft descriptor limit is raised to the hard one: 1024 is a common default), polled every 0.5 s.

One failed task ends the others, as `srun --kill-on-bad-exit` and PALS' mpiexec (abort on failure) do: TM kills
nothing by itself, so a node whose ranks finished would wait out torchrun's exit barrier (300 s, fixed) for the
node that failed, and a node whose task never started would leave the others waiting for the rendezvous timeout.
A task has failed when its pbsdsh says so on this host (its own report, not the shared RUN_DIR, whose files another
node writes may show here late on NFS); the others get SIGTERM through their pbsdsh, which passes it to the whole
task's session (tm_kill: src/resmom/linux/mom_mach.c kill_session) and exits at once (wait_for_task(): tm_kill,
then exit 1), so the tasks' own exit code files say when each node is done.
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Mapping, Sequence, Tuple

from app.host.common.errors import UsageError
from app.host.launch.pbs_nodes import read_node_file

#: How often the tasks' output files are read while the tasks run
POLL_S = 0.5
#: The task pbsdsh starts on each node: $1 = ENV_FILE, $2 = directory, $3 = the files' prefix, the rest = the
#: command. PBS_NODENUM and PBS_TASKNUM are the task's own (its mom's index in the node file's order, which the
#: launcher check reads), not the batch script's that ENV_FILE holds.
TASK = """node=${PBS_NODENUM:-} task=${PBS_TASKNUM:-}
. "$1" && export PBS_NODENUM="$node" PBS_TASKNUM="$task" && cd "$2" || exit
prefix=$3
shift 3
status=0
# A signal pbsdsh passes on reaches the whole session: the command ends on it, and this shell waits for that and
# records the command's code instead of dying first (a trap runs once the foreground command has ended)
trap : HUP INT TERM
"$@" >>"$prefix.out" || status=$?
echo "$status" >"$prefix.rc.tmp" && mv "$prefix.rc.tmp" "$prefix.rc"
exit "$status"
"""
#: What pbsdsh prints when a task ends non-zero (wait_for_task(): "%s: task 0x%08X exit status %d", the status
#: 256 + N for a task signal N ended) or cannot be started (main(): "%s: spawn failed on node %d err %s")
TASK_FAILED = re.compile(r"task 0x[0-9A-Fa-f]{8} exit status (-?[0-9]+)|(spawn failed on node)")
#: How long past the job's snapshot grace (SHUTDOWN_TIMEOUT_S: the node wrapper's, then torchrun's) the tasks
#: ended after another failed have to record their codes
ENDING_MARGIN_S = 30
#: Variables bash keeps read-only, which the task's shell would refuse to take from the file
BASH_READONLY = frozenset(("BASHOPTS", "SHELLOPTS", "BASH_VERSINFO", "EUID", "PPID", "UID"))
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def first_few(items: Sequence[str], few: int) -> str:
    """The first FEW items, then how many there are in all when there are more ."""
    shown = " ".join(items[:few])
    return shown + f" ... ({len(items)} in all)" if len(items) > few else shown


def environment_file_text(env: Mapping[str, str]) -> str:
    """`export NAME=VALUE` lines, every value quoted, for the task's shell to source."""
    return "".join(f"export {name}={shlex.quote(value)}\n" for name, value in sorted(env.items())
                   if IDENTIFIER.fullmatch(name) and name not in BASH_READONLY)


def _raise_descriptor_limit() -> None:
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError, OSError):
        pass


class Outputs:
    """The tasks' output files, copied to stdout a whole line at a time as they grow."""

    def __init__(self, paths: Sequence[str]) -> None:
        # Open for the whole step (closed by close()): reopening N files every poll would cost N opens a poll
        self.files = [open(path, "rb") for path in paths]  # noqa: SIM115
        self.partial: Dict[int, bytes] = {}

    def copy(self, final: bool = False) -> None:
        """What the files gained since the last copy, up to each one's last newline (all of it when FINAL)."""
        out = sys.stdout.buffer
        for number, handle in enumerate(self.files):
            data = self.partial.pop(number, b"") + handle.read()
            end = len(data) if final else data.rfind(b"\n") + 1
            out.write(data[:end])
            if end < len(data):
                self.partial[number] = data[end:]
        out.flush()

    def close(self) -> None:
        for handle in self.files:
            handle.close()


def exit_code(path: str) -> int:
    """A task's exit code from its file, -1 when there is none or it is not a number (a task that did not start
    or was killed)."""
    try:
        with open(path) as status:
            text = status.read().strip()
    except OSError:
        return -1
    return int(text) if re.fullmatch("[0-9]{1,3}", text) else -1


def reported_code(report: str, returncode: int) -> int:
    """The task's code as its ended pbsdsh tells it, from its REPORT (stdout and stderr) and RETURNCODE: 128 + N
    for a task signal N ended, as a shell reports it; -1 when it never started or pbsdsh itself failed; 0 when
    pbsdsh said nothing and ended 0 (it prints nothing for a task that succeeded)."""
    match = TASK_FAILED.search(report)
    if match and match.group(2):
        return -1
    if match:
        status = int(match.group(1))
        return 128 + status - 256 if status >= 256 else status
    return -1 if returncode != 0 else 0


class NodeTasks:
    """One `pbsdsh -n INDEX` a node, its report (stdout and stderr) in PREFIX.pbsdsh, the task's in PREFIX.out and
    PREFIX.rc."""

    def __init__(self, indexes: Sequence[str], prefixes: Sequence[str], task_words) -> None:
        self.indexes = list(indexes)
        self.prefixes = list(prefixes)
        self.processes = []  # type: List[subprocess.Popen]
        self.codes = {}  # type: Dict[int, int]
        for index, prefix in zip(indexes, prefixes):
            with open(prefix + ".pbsdsh", "wb") as report:
                self.processes.append(subprocess.Popen(["pbsdsh", "-n", index, "--", *task_words(prefix)],
                                                       stdin=subprocess.DEVNULL, stdout=report,
                                                       stderr=subprocess.STDOUT))

    def running(self) -> bool:
        return any(process.poll() is None for process in self.processes)

    def reported(self) -> Dict[int, int]:
        """{number: code} of each task whose pbsdsh has ended, as pbsdsh tells it (each report read once: an
        ended pbsdsh writes no more)."""
        for number, process in enumerate(self.processes):
            if number not in self.codes and process.poll() is not None:
                with open(self.prefixes[number] + ".pbsdsh", encoding="utf-8", errors="replace") as report:
                    self.codes[number] = reported_code(report.read(), process.returncode)
        return dict(self.codes)

    def failed(self) -> List[Tuple[int, int]]:
        """(number, code) of each task whose ended pbsdsh reports a failure."""
        return [(number, code) for number, code in sorted(self.reported().items()) if code != 0]

    def end_running(self) -> List[int]:
        """SIGTERM to every pbsdsh still running (each passes it to its task); their numbers."""
        ended = []
        for number, process in enumerate(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                ended.append(number)
        return ended

    def recorded(self, numbers: Sequence[int]) -> bool:
        return all(os.path.exists(self.prefixes[number] + ".rc") for number in numbers)

    def reports(self) -> bytes:
        """What the pbsdsh processes printed, in node order."""
        text = b""
        for prefix in self.prefixes:
            with open(prefix + ".pbsdsh", "rb") as report:
                text += report.read()
        return text


def _shutdown_grace() -> float:
    given = os.environ.get("SHUTDOWN_TIMEOUT_S", "")
    return (int(given) if re.fullmatch("[0-9]{1,6}", given) else 60) + ENDING_MARGIN_S


def run_on_each_node(log, error, command: Sequence[str], run_dir: str, job_id: str, node_file: str,
                     cwd: str) -> int:
    """COMMAND once on every node of NODE_FILE through pbsdsh; the highest exit code of the tasks (at least 1
    when one gave none), where one that failed ends the others, whose SIGTERM does not count. LOG and ERROR take
    the log's and the error's line."""
    if shutil.which("pbsdsh") is None:
        raise UsageError("LAUNCHER=pbsdsh, and pbsdsh is not in PATH (PBS_EXEC/bin of OpenPBS); use LAUNCHER=mpiexec "
                         "(Cray PALS), or add PBS's bin directory to PATH")
    try:
        with open(node_file, encoding="utf-8", errors="surrogateescape") as nodes:
            indexes = [str(index) for index in read_node_file(nodes.read()).first_lines]
    except OSError as cause:
        raise UsageError(f"PBS_NODEFILE={node_file} cannot be read ({cause.strerror}); PBS sets it in a job: submit "
                         "with qsub") from None
    directory = tempfile.mkdtemp(prefix=f".pbsdsh-{job_id}.", dir=run_dir)
    ended = []  # type: List[int]
    try:
        env_file = os.path.join(directory, "environment")
        with open(os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8",
                  errors="surrogateescape") as handle:
            handle.write(environment_file_text(os.environ))
        prefixes = [os.path.join(directory, index) for index in indexes]
        for prefix in prefixes:
            open(prefix + ".out", "wb").close()
        log("pbsdsh: one task per node, pbsdsh -n LINE for the first node-file line of each: "
            + first_few(indexes, 8))
        _raise_descriptor_limit()
        outputs = Outputs([prefix + ".out" for prefix in prefixes])
        tasks = NodeTasks(indexes, prefixes, lambda prefix: ["/bin/bash", "-c", TASK, "ddp-pbsdsh-task", env_file,
                                                             cwd, prefix, *command])
        while tasks.running():
            outputs.copy()
            failed = tasks.failed()
            if failed:
                ended = _end_the_others(error, tasks, failed, outputs)
                break
            time.sleep(POLL_S)
        outputs.copy(final=True)
        outputs.close()
        sys.stdout.buffer.write(tasks.reports())
        sys.stdout.flush()
        # The task's own file first (one that holds no code counts as a failure); pbsdsh's word where the file
        # does not show here (yet: NFS) or was never written (a task that did not start)
        reported = tasks.reported()
        codes = [exit_code(prefix + ".rc") if os.path.exists(prefix + ".rc") else reported.get(number, -1)
                 for number, prefix in enumerate(prefixes)]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    # A task ended here counts only with a code of its own: its SIGTERM (143) or no code is this launcher's doing
    counted = [code for number, code in enumerate(codes)
               if number not in ended or code not in (-1, 128 + signal.SIGTERM)]
    missing = [index for number, (index, code) in enumerate(zip(indexes, codes)) if code < 0 and number not in ended]
    if missing:
        error(f"pbsdsh: no exit code from the task on node-file line(s) {first_few(missing, 8)} (it did not start, "
              "or was killed: see the job's output file)")
    return max(max(counted, default=0), 1 if missing or ended else 0)


def _end_the_others(error, tasks: NodeTasks, failed: Sequence[Tuple[int, int]], outputs: Outputs) -> List[int]:
    """After FAILED (number, code), SIGTERM to the tasks still running, then their codes awaited for the job's
    snapshot grace; the numbers of the tasks ended."""
    ended = tasks.end_running()
    if not ended:
        return ended
    number, code = failed[0]
    said = f"exit {code}" if code >= 0 else "no exit code"
    error(f"pbsdsh: the task on node-file line {tasks.indexes[number]} failed ({said}): ending the tasks on "
          f"node-file line(s) {first_few([tasks.indexes[each] for each in ended], 8)}, which would wait for it")
    deadline = time.monotonic() + _shutdown_grace()
    while (tasks.running() or not tasks.recorded(ended)) and time.monotonic() < deadline:
        outputs.copy()
        time.sleep(POLL_S)
    return ended
