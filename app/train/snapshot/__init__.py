"""A run's snapshots: when they are due, how they are written (one file, or sharded with DCP), what they hold
and how a run resumes from one. The rest of the trainer uses what is named here; the format's keys
(format.py) and the files' layout (layout.py) stay inside.

    manager.py     SnapshotManager: due, save, wait, to_resume, restore (the one owner)
    writers.py     the single-file and the sharded writer, chosen once per rank (writer_for)
    write_failures.py  a write the file system refused, as one line and exit code 9 (StorageError)
    layout.py      names on disk, listing, verifying, reading
    format.py      every key of what a snapshot holds
    settings.py    which settings a resumed run may change
    broadcast.py   rank 0's snapshot sent to every other rank
    wire.py        what rank 0 sends the others (values besides tensors, DCP's metadata) as JSON, never pickled
    dcp_metadata.py  DCP's .metadata read without running code from the file
    peer_pickles.py  what DCP's ranks send each other, unpickled with DCP's own classes only
    export.py      a snapshot's model as one plain state dict (`python -m app.train.export`)
"""

from app.train.snapshot.format import UnfitSnapshot
from app.train.snapshot.layout import Snapshot
from app.train.snapshot.manager import SnapshotManager, position_of
from app.train.snapshot.peer_pickles import refuse_foreign_classes
from app.train.snapshot.settings import MAY_CHANGE_ON_RESUME, refuse_changed_settings

__all__ = ["MAY_CHANGE_ON_RESUME", "Snapshot", "SnapshotManager", "UnfitSnapshot", "position_of",
           "refuse_changed_settings", "refuse_foreign_classes"]
