"""`python -m app.diagnose LOG [LOG...]` (or `app-diagnose`): read a failed job's logs and say why it failed.

    python -m app.diagnose ddp-1234.out                # the batch output of a job
    python -m app.diagnose ddp.o15481 ddp.e15481       # PBS' output and error files, read together
    python -m app.diagnose runs/1234                   # a run directory: summary.json, history.jsonl, *.out
    python -m app.diagnose --list                      # the causes it recognises

It reads any job's output, not only this project's: torchrun, NCCL (with or without NCCL_DEBUG=INFO),
aws-ofi-nccl, libfabric, libibverbs, Slurm, PBS and Python tracebacks. For each cause it recognises it prints,
most likely first, the cause in one sentence, its layer and how sure the reading is, the lines that show it
(file:line) and the fix. Every cause and layer verdict is listed in docs/diagnose.md (generated from the table:
`python -m app.host.diagnose.catalogue --write docs/diagnose.md`). A root cause
ranks above its consequences (a libfabric symbol-version error above the "Failed to initialize any NET plugin"
it causes, "network AWS Libfabric not found" before NCCL 2.27; a CUDA out-of-memory above the watchdog timeouts
of the ranks that waited for it).

Bounds: lines are streamed, never all held; a line is read up to 1 MiB; of a file over 256 MiB the first 64 MiB
and the last 192 MiB are read and the report says what was skipped (`Limits`); only regular files are read.

Exit codes:
    0  a cause was recognised (exitcodes.OK)
    8  the logs were read but no cause in them was recognised (exitcodes.NOTHING_RECOGNISED); where a symptom
       points to a layer (a hang after init, an error on one node only) the report says which and what to run
       next, and names no cause
    2  a log could not be read: missing, unreadable, not a regular file (a FIFO, a device), or a directory
       without logs (exitcodes.USAGE); one line on stderr says which and what to give instead, no traceback

One source for each fix: the patterns and fixes live in app/host/diagnose/causes.py; fixes the project already words
are imported from app/host/common/remedies.py and the fabric policy (app/host/common/fabric_policy.py). The symptom
tables of docs/job-scripts.md are tested against that table, not generated from it
(tests/diagnose/test_readme_tables.py): every row whose symptom is a log line must be recognised by the rule that names
it, and every command or setting quoted in the row's fix must appear in the rule's fix. Why tested: the tables' rows
are per-site prose, while a rule's fix also has to serve jobs that never used this project's scripts.

API (no torch import; standard library and app.host only): `diagnose(paths) -> list[Finding]` and
`diagnose_lines(lines) -> list[Finding]`; a Finding has `key`, `cause`, `fix` and `evidence` (file, line, text).
`Limits` bounds what is read of each file (its size, its lines); `Reading(limits).lines_of(paths)` streams the
lines and says what it left out. Only regular files are read: a FIFO or device given as LOG is refused (exit 2).
"""

from app.host.diagnose.core import Finding, diagnose, diagnose_lines
from app.host.diagnose.reading import Limits, Line, Reading, UnreadableInput

__all__ = ["Finding", "Limits", "Line", "Reading", "UnreadableInput", "diagnose", "diagnose_lines"]
