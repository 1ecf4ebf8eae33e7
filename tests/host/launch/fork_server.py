"""A fresh process for each run of a module's main(), without a fresh interpreter: a server imports the module once,
then forks a child for each request, which takes the request's environment, directory and arguments, writes its
output to the request's files and ends as the interpreter would (its exit code, a traceback on an exception, the
exit handlers and thread joins of a normal exit).

Interpreter start and imports were 0.23 of the 0.25 CPU seconds of each of the ~120 runs of the job's parts in the
fast tier (tests/host/launch/job_parts.py). What the interpreter reads only as it starts (PYTHON* variables, the
locale, the interpreter itself) a child cannot change: requests that set them start a real process instead
(`ForkServer.serves`).
"""

from __future__ import annotations

import atexit
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

#: Variables a running interpreter does not take up again: a request that sets one gets a process of its own
STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG")


def serve(main: Callable[[], int]) -> None:
    """Answer each request (a JSON line on stdin: argv, env, cwd, stdout, stderr) with {"pid"} as the child starts
    and {"rc"} (subprocess's returncode) as it ends, each a JSON line on stdout."""
    answers = sys.stdout.buffer
    # Started without a locale, the interpreter coerced it (PEP 538) and says so in LC_CTYPE, as each new one would
    coerced = os.environ.get("LC_CTYPE")
    for line in sys.stdin.buffer:
        request = json.loads(line.decode())
        if coerced is not None:
            request["env"].setdefault("LC_CTYPE", coerced)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _become(request)
            # Up through this loop to the interpreter's own exit: the code, or the traceback and 1
            raise SystemExit(main())
        answers.write(json.dumps({"pid": pid}).encode() + b"\n")
        answers.flush()
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        answers.write(json.dumps({"rc": code}).encode() + b"\n")
        answers.flush()


def _become(request: dict) -> None:
    """The child: the request's standard streams, directory, environment and arguments, and what a new interpreter
    would draw anew (the random generator: a forked one repeats its parent's numbers in every child)."""
    streams = [os.open(os.devnull, os.O_RDONLY),
               os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    for number, fd in enumerate(streams):
        os.dup2(fd, number)
        os.close(fd)
    sys.stdin = open(os.devnull)  # noqa: SIM115 (the child's for the rest of its life)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    random.seed()
    tempfile.tempdir = None
    sys.argv = request["argv"]


class Finished(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


class ForkServer:
    """`python -m MODULE --serve` (the module calls `serve(main)` on that flag), started on first use with
    ENV and stopped (and waited for) at the end of this process."""

    def __init__(self, module: str, env: dict[str, str]) -> None:
        self.module = module
        self.env = env
        self.process = None  # type: Optional[subprocess.Popen]
        self.unread = b""

    def serves(self, python: str, env: dict[str, str]) -> bool:
        """Whether a child of this server is what `python -m MODULE` would be under ENV."""
        return python == sys.executable and env.get("PYTHONPATH") == self.env.get("PYTHONPATH") and not any(
            name.startswith(STARTUP_VARIABLES) for name in env if name != "PYTHONPATH")

    def run(self, argv: list[str], env: dict[str, str], cwd: str, timeout_s: float) -> Finished:
        """MODULE's main() with ARGV in a child under ENV in CWD; killed after TIMEOUT_S (subprocess's exception)."""
        server = self._started()
        scratch = Path(tempfile.mkdtemp())
        try:
            outputs = {"stdout": str(scratch / "stdout"), "stderr": str(scratch / "stderr")}
            request = {"argv": [self.module, *argv], "env": env, "cwd": cwd, **outputs}
            server.stdin.write(json.dumps(request).encode() + b"\n")
            server.stdin.flush()
            pid = self._answer(None)["pid"]
            ended = self._answer(timeout_s)
            if ended is None:
                os.kill(pid, signal.SIGKILL)
                self._answer(None)
                raise subprocess.TimeoutExpired([self.module, *argv], timeout_s)
            return Finished(ended["rc"], *(Path(path).read_text(errors="replace") for path in outputs.values()))
        finally:
            for path in scratch.iterdir():
                path.unlink()
            scratch.rmdir()

    def _answer(self, timeout_s: float | None) -> dict | None:
        """The server's next answer; None when TIMEOUT_S passed first (read unbuffered: select sees all there is)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while b"\n" not in self.unread:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.process.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"the fork server of {self.module} stopped")
            self.unread += chunk
        line, self.unread = self.unread.split(b"\n", 1)
        return json.loads(line.decode())

    def stop(self) -> None:
        """End the server and wait for it: its CPU time and its children's then count in this process's."""
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)

    def _started(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            if self.process is None:
                atexit.register(self.stop)
            self.unread = b""
            self.process = subprocess.Popen(["env", "-i", *("{}={}".format(*item) for item in self.env.items()),
                                             sys.executable, "-m", self.module, "--serve"],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        return self.process
