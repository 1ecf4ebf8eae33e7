"""Exit codes shared by every entry point (`app.train`, `app.check`), documented in docs/training.md and docs/check.md.

Job scripts branch on them: 75 means "snapshot written, requeue me"; 2 means "fix your input, do not
retry". Under torchrun they reach the job through the node wrapper (app/common/node_wrapper.sh), which ends each
node with its first failed worker's code where torchrun itself would end 1. The check's codes follow NVIDIA
NVSentinel's preflight idea: one code per failure class, so a scheduler prolog can tell a broken node from a slow
fabric without parsing text.
"""

OK = 0
#: An unexpected error: a traceback was printed, report it.
INTERNAL = 1
#: Bad input: config key or value, command line, environment variable, unreadable file.
USAGE = 2
#: The ranks could not meet: rendezvous or process-group initialisation failed or timed out.
RENDEZVOUS = 3
#: A collective or stage did not finish within its deadline (a hung or dead rank).
TIMEOUT = 4
#: A collective returned wrong values.
WRONG_RESULTS = 5
#: Bandwidth below the required threshold.
SLOW = 6
#: A node check (GPU, network, fabric plugin, container, versions) failed before any collective ran.
PREFLIGHT = 7
#: `app.diagnose` read the logs and recognised no cause it knows.
NOTHING_RECOGNISED = 8
#: A file of the run could not be written: its file system is full, over quota or failing (not the input).
STORAGE = 9
#: The rendezvous store was tampered with (a value the job did not write, a deleted or oversized key) or its
#: connection was closed under the job: stopped without acting on it. Not a bad node: never a reason to requeue.
STORE = 10
#: Stopped by SIGTERM/SIGUSR1/SIGINT after writing a snapshot: requeue the job and it resumes (EX_TEMPFAIL).
PREEMPTED = 75
#: Ctrl-C (SIGINT) where nothing else handles it: the shell's 128 + SIGINT (`errors.exits_cleanly`).
INTERRUPTED = 130

DESCRIPTIONS = {
    OK: "success",
    INTERNAL: "unexpected error (traceback printed)",
    USAGE: "bad configuration, command line or environment",
    RENDEZVOUS: "rendezvous or process-group initialisation failed",
    TIMEOUT: "a stage or collective exceeded its deadline",
    WRONG_RESULTS: "a collective returned wrong values",
    SLOW: "bandwidth below the required threshold",
    PREFLIGHT: "a node check failed",
    NOTHING_RECOGNISED: "app.diagnose: no known cause in the logs",
    STORAGE: "a file could not be written: no space, quota or I/O error of its file system",
    STORE: "the job's store was tampered with or is unreachable; stopped without acting on it",
    PREEMPTED: "stopped by a signal after writing a snapshot; requeue to resume",
    INTERRUPTED: "interrupted (Ctrl-C)",
}
