"""The run as a picture: loss and validation loss, and throughput, against steps; restarts and requeues
marked where the resumed attempt started. matplotlib is an optional extra (pip install 'app[plot]')."""

from pathlib import Path

from app.host.common.replace_file import replacing
from app.host.report.run_record import RunRecord

#: Colours the test looks for in the picture (matplotlib's tab10 names)
TRAIN_COLOUR, VALIDATION_COLOUR, RESTART_COLOUR, REQUEUE_COLOUR = "tab:blue", "tab:orange", "tab:gray", "tab:red"


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def draw(run: RunRecord, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: compute and login nodes have no display
    import matplotlib.pyplot as plt

    steps = run.steps.curve.points  # at most MAX_POINTS, spread over the whole run
    figure, (loss_axes, speed_axes) = plt.subplots(2, 1, figsize=(10, 7), sharex=True, height_ratios=(3, 2))
    loss_axes.plot([r["step"] for r in steps], [r["loss"] for r in steps], color=TRAIN_COLOUR, lw=1, label="training")
    validations = run.steps.validations.points
    if validations:
        loss_axes.plot([r["step"] for r in validations], [r["val_loss"] for r in validations], "o-",
                       color=VALIDATION_COLOUR, lw=2, label="validation")
    loss_axes.set_ylabel("loss")
    key, unit = ("tokens_per_s", "tokens/s") if run.steps.all_have_tokens_per_s else ("samples_per_s", "samples/s")
    speed_axes.plot([r["step"] for r in steps], [r[key] for r in steps], color=TRAIN_COLOUR, lw=1)
    speed_axes.set_ylabel(unit)
    speed_axes.set_xlabel("optimizer step")
    speed_axes.set_ylim(bottom=0)
    for axes in (loss_axes, speed_axes):
        axes.grid(alpha=0.3)
        for restart in run.restarts:
            requeue = bool(restart.requeued_without)
            label = (f"requeued without {', '.join(restart.requeued_without)}" if requeue
                     else f"restart (attempt {restart.attempt})")
            axes.axvline(restart.step, color=REQUEUE_COLOUR if requeue else RESTART_COLOUR, ls="--", lw=1.5,
                         label=label if axes is loss_axes else None)
    if run.total_steps:
        speed_axes.set_xlim(0, run.total_steps)
    loss_axes.legend(loc="upper right")
    status = run.summary.get("status", "") if run.finished and run.summary else "in progress"
    loss_axes.set_title(f"{run.run_dir.name}: {status}, step {run.steps.last['step']}"
                        + (f" of {run.total_steps}" if run.total_steps else ""))
    figure.tight_layout()
    with replacing(str(path)) as new:  # a link planted at the path is replaced, not written through
        figure.savefig(new, dpi=100)
    plt.close(figure)
