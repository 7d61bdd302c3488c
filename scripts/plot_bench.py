#!/usr/bin/python3
"""Turns benchmark JSON lines (bench/results/*.jsonl) into PNG plots:
  io_modes_time.png     time per --io mode per app (records "bench": "io_modes")
  io_modes_bytes.png    bytes read per --io mode per app
  multidisk.png         scan MB/s vs device count, next to N x 150 MB/s (records "bench": "multidisk_pagerank")
  matrix_time_INPUT.png time per app and mode for each device count (records "bench": "matrix")
  matrix_bytes_per_iteration_INPUT.png   bytes read per iteration, full vs selective vs auto (one device)
  matrix_device_mbps_INPUT.png           per-device MB/s (busy time) vs device count, pagerank --io full

    scripts/plot_bench.py OUT_DIR FILE.jsonl...   (Debian: apt-get install python3-matplotlib)
"""
import json
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save(fig, out_dir, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, name), dpi=110)
    plt.close(fig)
    return name


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


def plot_io_modes(records, out_dir):
    runs = [r for r in records if r.get("bench") == "io_modes"]
    if not runs:
        return []
    modes = ["full", "selective", "auto"]
    def case(r):  # graph, budget and cache setting tell runs apart
        cache = " no-cache" if "--no-cache" in r.get("options", "") else ""
        return (os.path.basename(r["graph"]), f'{r["memory"] >> 20}M{cache}', r["app"])

    groups = sorted({case(r) for r in runs})
    made = []
    for metric, label, scale, name in (("seconds", "time (s, log)", 1, "io_modes_time.png"),
                                       ("bytes_read", "bytes read (MB, log)", 1e6, "io_modes_bytes.png")):
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(groups)), 4))
        width = 0.8 / len(modes)
        for i, mode in enumerate(modes):
            values = []
            for group in groups:
                match = [r[metric] / scale for r in runs if case(r) == group and r["io"] == mode]
                values.append(statistics.median(match) if match else 0)  # repeats: the median
            ax.bar([g + i * width for g in range(len(groups))], values, width, label=f"--io {mode}")
        ax.set_xticks([g + width for g in range(len(groups))])
        ax.set_xticklabels([f"{app}\n{graph}\n{budget}" for graph, budget, app in groups], fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.legend()
        made.append(save(fig, out_dir, name))
    return made


def plot_multidisk(records, out_dir):
    runs = [r for r in records if r.get("bench") == "multidisk_pagerank"]
    if not runs:
        return []
    by_stripe = defaultdict(list)
    for r in runs:
        by_stripe[r["stripe"]].append((r["devices"], r["scan_mb_per_s"]))
    fig, ax = plt.subplots(figsize=(6, 4))
    devices = sorted({r["devices"] for r in runs})
    ax.plot(devices, [150 * n for n in devices], "k--", label="N x 150 MB/s")
    ax.plot(devices, [0.9 * 150 * n for n in devices], "k:", label="90% target")
    for stripe, points in sorted(by_stripe.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=f"stripe {stripe}")
    ax.set_xlabel("devices")
    ax.set_ylabel("full-scan MB/s")
    ax.set_xticks(devices)
    ax.legend()
    return [save(fig, out_dir, "multidisk.png")]


def plot_matrix(records, out_dir):
    made = []
    matrix = [r for r in records if r.get("bench") == "matrix"]
    for source in sorted({r["input"] for r in matrix}):
        stem = os.path.basename(source).split(".")[0]
        made += plot_matrix_input([r for r in matrix if r["input"] == source], out_dir, stem)
    return made


def plot_matrix_input(runs, out_dir, stem):
    made = []
    apps = sorted({r["app"] for r in runs})
    modes = ["full", "selective", "auto"]
    devices = sorted({r["devices"] for r in runs})
    fig, axes = plt.subplots(1, len(apps), figsize=(4.5 * len(apps), 3.8), squeeze=False)
    for ax, app in zip(axes[0], apps):
        width = 0.8 / len(modes)
        for i, mode in enumerate(modes):
            values = [statistics.median([r["seconds"] for r in runs if (r["app"], r["io"], r["devices"]) == (app, mode, n)] or [0])
                      for n in devices]
            ax.bar([d + i * width for d in range(len(devices))], values, width, label=f"--io {mode}")
        ax.set_xticks([d + width for d in range(len(devices))])
        ax.set_xticklabels([f"{n} disk(s)" for n in devices])
        ax.set_title(f"{app} ({stem})")
        ax.set_ylabel("time (s, median of repeats)")
    axes[0][0].legend()
    made.append(save(fig, out_dir, f"matrix_time_{stem}.png"))

    fig, axes = plt.subplots(1, len(apps), figsize=(4.5 * len(apps), 3.8), squeeze=False)
    for ax, app in zip(axes[0], apps):
        for mode in modes:
            run = next((r for r in runs if (r["app"], r["io"], r["devices"]) == (app, mode, devices[0])), None)
            if run is None:
                continue
            ax.plot(range(len(run["iterations"])), [it["bytes_read"] / 1e6 for it in run["iterations"]], "o-", label=f"--io {mode}")
        ax.set_title(f"{app} ({stem}, {devices[0]} disk)")
        ax.set_xlabel("step")
        ax.set_ylabel("MB read")
    axes[0][0].legend()
    made.append(save(fig, out_dir, f"matrix_bytes_per_iteration_{stem}.png"))

    scans = [r for r in runs if r["app"] == "pagerank" and r["io"] == "full"]
    if scans:
        fig, ax = plt.subplots(figsize=(6, 4))
        for r in sorted(scans, key=lambda r: r["devices"]):
            ax.scatter([r["devices"]] * len(r["device"]), [d["mb_per_s"] for d in r["device"]], color="C0")
        ax.axhline(150, color="k", linestyle="--", label="150 MB/s per disk")
        ax.set_xticks(devices)
        ax.set_xlabel("devices")
        ax.set_ylabel("per-device MB/s while busy")
        ax.legend()
        made.append(save(fig, out_dir, f"matrix_device_mbps_{stem}.png"))
    return made


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    records = load(sys.argv[2:])
    made = plot_io_modes(records, out_dir) + plot_multidisk(records, out_dir) + plot_matrix(records, out_dir)
    for name in made:
        print(os.path.join(out_dir, name))
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
