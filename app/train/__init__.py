"""The DDP trainer: `python -m app.train` (entry in `cli`).

Rooms: `cli` validates input and joins the process group; `assemble` builds the pieces of one run
(workload, optimizer, training state, sinks); `loop` trains over `steps`, one `optimizer_step` at a
time, `step_reports` writing each; `state` owns the training state; the `snapshot` package (its
`SnapshotManager`) decides when to write a snapshot, writes, prunes and resumes, and alone knows the format
and the files; `summary` reports the finished run.
"""
