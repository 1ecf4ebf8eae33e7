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
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, Mapping, Sequence

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
"$@" >>"$prefix.out" || status=$?
echo "$status" >"$prefix.rc.tmp" && mv "$prefix.rc.tmp" "$prefix.rc"
exit "$status"
"""
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


def run_on_each_node(log, error, command: Sequence[str], run_dir: str, job_id: str, node_file: str,
                     cwd: str) -> int:
    """COMMAND once on every node of NODE_FILE through pbsdsh; the highest exit code of the tasks (at least 1
    when one gave none). LOG and ERROR take the log's and the error's line."""
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
        tasks = [subprocess.Popen(["pbsdsh", "-n", index, "--", "/bin/bash", "-c", TASK, "ddp-pbsdsh-task", env_file,
                                   cwd, prefix, *command], stdin=subprocess.DEVNULL)
                 for index, prefix in zip(indexes, prefixes)]
        while any(task.poll() is None for task in tasks):
            outputs.copy()
            time.sleep(POLL_S)
        outputs.copy(final=True)
        outputs.close()
        codes = [exit_code(prefix + ".rc") for prefix in prefixes]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    missing = [index for index, code in zip(indexes, codes) if code < 0]
    if missing:
        error(f"pbsdsh: no exit code from the task on node-file line(s) {first_few(missing, 8)} (it did not start, "
              "or was killed: see the job's output file)")
    return max(max(codes), 1 if missing else 0)
