"""The DDP trainer: `python -m app.train` (entry in `cli`).

Rooms: `cli` validates input and joins the process group; `assemble` builds the pieces of one run
(workload, optimizer, training state, sinks); `loop` trains; `state` owns what a snapshot holds and
`checkpoint` writes and finds snapshots; `summary` reports the finished run.
"""
