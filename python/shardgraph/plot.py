"""Figures of runs: per step, its time, what the planner chose (pull or
push; full scans or selective reads), the bytes read from each device, and
the predicted time against the measured one. Several runs go side by side
(e.g. --io full, selective and auto). matplotlib is an optional extra."""

import json
import os

_CHOICE_COLOURS = {"pull": "#4c72b0", "push, full": "#dd8452", "push, selective": "#55a868", "push, mixed": "#c44e52"}


def load_stats(run):
    """A run's statistics (the --stats JSON) from a Result, a dict, a path
    or a JSON string."""
    if hasattr(run, "stats"):
        return run.stats
    if isinstance(run, dict):
        return run
    text = os.fspath(run)
    if text.lstrip().startswith("{"):
        return json.loads(text)
    with open(text) as f:
        return json.load(f)


def step_choice(step):
    """What the planner chose for a step: pull, or push with full scans,
    selective reads or both."""
    if step["mode"] == "pull":
        return "pull"
    decided = len(step.get("interval_decisions", []))
    selective = step.get("selective_intervals", 0)
    if selective == 0:
        return "push, full"
    return "push, selective" if selective >= decided else "push, mixed"


def run_label(stats):
    return f"{stats.get('app', '?')} --io {stats.get('io_mode', '?')}"


def plot(runs, labels=None, title=None):
    """One matplotlib figure for one run or several side by side: rows are
    time per step (coloured by the planner's choice), bytes read per device,
    and the seconds so far, measured and predicted. Returns the Figure."""
    import matplotlib

    if not _has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not isinstance(runs, (list, tuple)):
        runs = [runs]
    stats = [load_stats(r) for r in runs]
    labels = labels or [run_label(s) for s in stats]
    figure, axes = plt.subplots(3, len(stats), figsize=(4.2 * len(stats) + 0.8, 8.5), squeeze=False, sharey="row")
    for column, (s, label) in enumerate(zip(stats, labels)):
        _time_panel(axes[0][column], s, label)
        _device_panel(axes[1][column], s)
        _prediction_panel(axes[2][column], s)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in _CHOICE_COLOURS.values()]
    top = 0.95
    if title:
        figure.suptitle(title, y=0.995)
        top = 0.93
    figure.legend(handles, list(_CHOICE_COLOURS), loc="upper center", bbox_to_anchor=(0.5, top + 0.035), ncol=4,
                  frameon=False)
    figure.tight_layout(rect=(0, 0, 1, top))
    return figure


def _step_numbers(ax, steps):
    """Each step at its own number (0 first, as the report and explain.py
    number them; a long run's folded steps leave a gap), the axis from
    step 0's bar on."""
    xs = [s.get("iteration", i) for i, s in enumerate(steps)]
    if xs:
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    return xs


def _time_panel(ax, stats, label):
    steps = stats.get("steps", [])
    xs = _step_numbers(ax, steps)
    ax.bar(xs, [s["seconds"] for s in steps], color=[_CHOICE_COLOURS[step_choice(s)] for s in steps])
    ax.set_title(f"{label}\n{stats.get('seconds', 0):.2f} s, {stats.get('bytes_read', 0) / 1e6:.1f} MB read", fontsize=9)
    ax.set_xlabel("step")
    ax.set_ylabel("seconds")


def _device_panel(ax, stats):
    steps = stats.get("steps", [])
    devices = max((len(s.get("device_bytes", [])) for s in steps), default=0)
    xs = _step_numbers(ax, steps)
    bottom = [0.0] * len(steps)
    names = [d.get("device", str(i)) for i, d in enumerate(stats.get("devices", []))]
    for d in range(devices):
        values = [s["device_bytes"][d] / 1e6 if d < len(s.get("device_bytes", [])) else 0 for s in steps]
        name = names[d] if d < len(names) else f"device {d}"
        ax.bar(xs, values, bottom=bottom, label=os.path.basename(name.rstrip("/")) or name)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel("step")
    ax.set_ylabel("MB read")
    if devices > 1:
        ax.legend(fontsize=7)


def _prediction_panel(ax, stats):
    """Seconds so far, measured and as the cost model predicted them: the
    gap is the model's error, summed (step by step it is too noisy to read
    over hundreds of steps)."""
    steps = stats.get("steps", [])
    xs = _step_numbers(ax, steps)
    measured, predicted = _running_sum(s["seconds"] for s in steps), _running_sum(
        s.get("predicted_seconds", 0) for s in steps)
    ax.plot(xs, measured, label="measured")
    ax.plot(xs, predicted, linestyle="--", label="predicted")
    ax.set_xlabel("step")
    ax.set_ylabel("seconds so far")
    ax.legend(fontsize=7)


def _running_sum(values):
    total, out = 0.0, []
    for v in values:
        total += v
        out.append(total)
    return out


def _has_display():
    import sys

    return "ipykernel" in sys.modules or bool(os.environ.get("DISPLAY"))
