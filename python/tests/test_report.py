"""sg.plot draws a run's figure, and `python -m shardgraph.report` writes
a page that renders in headless Chromium without console errors."""

import os
import shutil
import subprocess
import sys

import pytest
import shardgraph as sg
from shardgraph.plot import load_stats, step_choice


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """BFS on a road-like grid with --io full, selective and auto."""
    where = tmp_path_factory.mktemp("report")
    sg.generate.grid(60, 60, where / "grid.txt")
    g = sg.ingest(where / "grid.txt", where / "g", undirected=True, memory="32M", chunk_bytes=4096, progress=False)
    paths = []
    for io in ("full", "selective", "auto"):
        path = where / f"bfs-{io}.json"
        result = g.bfs(source=0, io=io, stats=path, memory="32M", progress=False)
        assert result.stats["io_mode"] == io and len(result.stats["steps"]) > 50
        paths.append(path)
    return paths


def test_plot_draws_each_run_in_a_column(runs):
    figure = sg.plot(runs)
    assert len(figure.axes) == 9  # time, bytes per device, predicted vs measured; three runs
    time_full, time_selective = figure.axes[0], figure.axes[1]
    assert "--io full" in time_full.get_title() and "--io selective" in time_selective.get_title()
    assert len(time_full.patches) == len(load_stats(runs[0])["steps"])
    # Step 0 is drawn, at 0, with what it read: a full scan reads most then.
    steps = load_stats(runs[0])["steps"]
    bytes_full = figure.axes[3]
    first = min(bytes_full.patches, key=lambda bar: bar.get_x())
    assert first.get_x() < 0 < first.get_x() + first.get_width()
    assert first.get_height() == pytest.approx(steps[0]["device_bytes"][0] / 1e6) and first.get_height() > 0
    assert bytes_full.get_xlim()[0] < first.get_x()


def test_the_planner_choices_differ_by_mode(runs):
    choices = [{step_choice(s) for s in load_stats(p)["steps"]} for p in runs]
    assert "push, selective" not in choices[0] and "push, mixed" not in choices[0]
    assert "push, selective" in choices[1]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def render_in_chromium(page, where):
    """The DOM after load, and the console's error lines."""
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", f"--user-data-dir={where / 'profile'}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and ("Error" in line or "Uncaught" in line)]
    return done.stdout, errors


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (scripts/setup.sh --python installs it)")
def test_the_html_report_renders_in_headless_chromium(runs, tmp_path):
    page = tmp_path / "report.html"
    labels = ["full", "selective", "auto"]
    done = subprocess.run([sys.executable, "-m", "shardgraph.report", *map(str, runs), "-o", str(page),
                           *[a for label in labels for a in ("--label", label)]], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    dom, errors = render_in_chromium(page, tmp_path)
    assert errors == []
    assert 'data-figures-rendered="1"' in dom
    assert dom.count('id="axes_') == 9
    for label in labels:
        assert f"<td>{label}</td>" in dom
    # The check would see a broken page: one with a script error.
    broken = tmp_path / "broken.html"
    broken.write_text(page.read_text().replace("document.body.dataset", "document.nobody.dataset"))
    dom, errors = render_in_chromium(broken, tmp_path)
    assert errors and "data-figures-rendered" not in dom


def test_report_names_a_missing_file(tmp_path):
    done = subprocess.run([sys.executable, "-m", "shardgraph.report", str(tmp_path / "none.json"), "-o",
                           str(tmp_path / "r.html")], capture_output=True, text=True)
    assert done.returncode == 1 and "none.json" in done.stderr and not os.path.exists(tmp_path / "r.html")
