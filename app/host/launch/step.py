"""One step of the job (standard library only, Python 3.6): its command on every node through the launcher, the
scheduler's USR1/TERM turned into the stop file while it runs, and the code it ends with.

The step runs in the background and the main thread waits for it: Python runs a signal handler between bytecodes
of the main thread, and a blocking waitpid that a signal interrupts runs the handler and resumes (PEP 475), so a
USR1 is written to the stop file at once, not when the step ends."""

import os
import shutil
import signal
import subprocess
from typing import Callable, List, Sequence

#: The signals a step turns into a stop request: USR1 (sbatch --signal=B:USR1@90, the time limit's warning; PBS's
#: timer) and TERM (scancel, a preemption)
STOP_SIGNALS = (("USR1", signal.SIGUSR1), ("TERM", signal.SIGTERM))

# The characters bash's printf %q escapes with a backslash (bash 5.2 lib/sh/shquote.c, sh_backslash_quote)
_BACKSLASHED = set(" \t\n'\"\\|&;()<>!{}*[?]^$`,")
# What bash's ansic_quote writes for these (lib/sh/strtrans.c)
_ANSI_C = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\x1b": "\\E",
           "\\": "\\\\", "'": "\\'"}


def bash_quoted(word: str) -> str:
    """WORD as bash's `printf %q` writes it, so the job log's step line reads as it always has (and pastes back
    into a shell): '' for nothing, $'...' for a word with a control character, else backslashes."""
    if not word:
        return "''"
    if any(char < " " or char == "\x7f" for char in word):
        return "$'" + "".join(_ANSI_C.get(char) or (char if " " <= char != "\x7f" else f"\\{ord(char):03o}")
                              for char in word) + "'"
    quoted = []
    for index, char in enumerate(word):
        first = index == 0
        if char in _BACKSLASHED or (char == "~" and (first or word[index - 1] in "=:")) or (char == "#" and first):
            quoted.append("\\")
        quoted.append(char)
    return "".join(quoted)


def step_line(words: Sequence[str]) -> str:
    """The job log's line for a step: each word as %q writes it, each followed by a space."""
    return "step: " + "".join(bash_quoted(word) + " " for word in words)


def first_failure(codes_dir: str, launcher_rc: int) -> int:
    """The first non-zero code a node recorded in CODES_DIR (the node wrapper writes one file a node, then renames
    it from .part), oldest first, else LAUNCHER_RC. Once a node fails, srun --kill-on-bad-exit ends the others with
    SIGTERM and reports the signal over every exit code (Slurm src/srun/launch.c, _task_finish: a signalled task
    wins): 143 would hide the code the job branches on (75 requeues, 10 blames no node). A node the launcher killed
    records nothing, or later."""
    try:
        names = [name for name in os.listdir(codes_dir) if not name.endswith(".part")]
    except OSError:
        return launcher_rc
    stamped = []
    for name in names:
        try:
            stamped.append((os.stat(os.path.join(codes_dir, name)).st_mtime_ns, name))
        except OSError:
            continue
    # `ls -tr`'s order: oldest first; among files of one time, the name that sorts last first
    by_name = sorted(stamped, key=lambda item: item[1], reverse=True)
    for _, name in sorted(by_name, key=lambda item: item[0]):
        try:
            with open(os.path.join(codes_dir, name), encoding="utf-8", errors="replace") as record:
                code = record.readline().strip("\n")
        except OSError:
            continue
        if code and all("0" <= char <= "9" for char in code) and int(code) != 0:
            return int(code)
    return launcher_rc


def exit_status(returncode: int) -> int:
    """A child's code as a shell reports it: 128 + N for one that signal N ended."""
    return 128 - returncode if returncode < 0 else returncode


def fresh_stop_file(stop_file: str) -> None:
    """A stop request of an earlier run (before a requeue) must not stop this one, nor its nodes' codes count."""
    if os.path.lexists(stop_file):
        os.remove(stop_file)
    codes = stop_file + ".codes"
    if os.path.isdir(codes) and not os.path.islink(codes):
        shutil.rmtree(codes)
    elif os.path.lexists(codes):
        os.remove(codes)
    os.mkdir(codes)


def run_step(argv: Sequence[str], stop_file: str, on_stop: Callable[[str], None],
             popen: Callable[..., "subprocess.Popen[bytes]"] = subprocess.Popen) -> int:
    """ARGV run to its end; a USR1 or TERM meanwhile calls ON_STOP(name) and writes STOP_FILE, which every node's
    wrapper turns into SIGTERM for its workers (a snapshot, then a clean stop). The step's code: the first a node
    recorded, else the launcher's."""
    fresh_stop_file(stop_file)

    def stop(number: int, frame: object) -> None:
        name = next(name for name, each in STOP_SIGNALS if each == number)
        on_stop(name)
        with open(stop_file, "a"):
            pass

    before = [(number, signal.signal(number, stop)) for _, number in STOP_SIGNALS]
    try:
        child = popen(list(argv))
        returncode = None  # type: Optional[int]
        while returncode is None:
            # A handled signal runs `stop` and resumes the wait (PEP 475); the step goes on until it ends
            returncode = child.wait()
    finally:
        for number, handler in before:
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
    rc = exit_status(returncode)
    return first_failure(stop_file + ".codes", rc) if rc else 0


def node_command(launcher: Sequence[str], container: Sequence[str], cuda_compat: str, node_wrapper: str,
                 stop_file: str, owner: str, policy: str, program: Sequence[str]) -> List[str]:
    """What the launcher runs: on each node, in the container, the CUDA forward-compatibility check, then the node
    wrapper (the fabric policy, the stop file turned into SIGTERM, the code recorded), then PROGRAM. OWNER: the node
    that hosts torchrun's store, or ""."""
    return [*launcher, *container, "/bin/sh", "-c", cuda_compat, "cuda-compat", "/bin/sh", "-c", node_wrapper,
            "ddp-node", stop_file, owner, policy, *program]
