"""The DDP trainer: `python -m app.train` (entry in `cli`).

Rooms: `cli` validates input and joins the process group; `assemble` builds the pieces of one run
(workload, optimizer, training state, sinks); `loop` trains over `steps`, one `optimizer_step` at a
time, `step_reports` writing each; `state` owns what a snapshot holds and `snapshots` (the snapshot
manager) decides when to write one, writes, prunes and resumes; `summary` reports the finished run.
"""
