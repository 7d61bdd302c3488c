"""python -m shardgraph.report RUN.json... -o report.html: a self-contained
HTML page (figures inlined as SVG) of one or more runs' --stats, side by
side, with a table of their totals."""

import argparse
import html
import io
import sys

from .plot import load_stats, plot, run_label, step_choice


# Marks the page once every figure has laid out with a size, so a headless
# browser (and the package's test) can tell that it rendered.
_SCRIPT = """<script>
window.addEventListener("load", () => {
  const drawn = [...document.querySelectorAll("figure svg")].filter((svg) => svg.getBBox().width > 0);
  document.body.dataset.figuresRendered = String(drawn.length);
});
</script>
"""


def render(runs, labels=None, title="shardgraph runs"):
    """The page for `runs` (Results, stats dicts or --stats paths), as a string."""
    stats = [load_stats(r) for r in runs]
    labels = labels or [run_label(s) for s in stats]
    figure = plot(stats, labels=labels, title=title)
    svg = io.StringIO()
    figure.savefig(svg, format="svg", bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(figure)
    rows = "".join(_row(s, label) for s, label in zip(stats, labels))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:1.5em}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}} th{{background:#eee}}</style></head>
<body><h1>{html.escape(title)}</h1>
<table id="totals"><tr><th>run</th><th>seconds</th><th>steps</th><th>MB read</th><th>requests</th>
<th>I/O wait s</th><th>pull</th><th>push, full</th><th>push, selective or mixed</th></tr>{rows}</table>
<figure id="figure">{_strip_xml_header(svg.getvalue())}
<figcaption>Per step: time coloured by the planner's choice, MB read per device, predicted and measured
seconds.</figcaption></figure>
{_SCRIPT}</body></html>
"""


def _row(stats, label):
    steps = stats.get("steps", [])
    choices = [step_choice(s) for s in steps]
    cells = [label, f"{stats.get('seconds', 0):.3f}", len(steps), f"{stats.get('bytes_read', 0) / 1e6:.1f}",
             stats.get("requests", 0), f"{stats.get('io_wait_seconds', 0):.3f}", choices.count("pull"),
             choices.count("push, full"), choices.count("push, selective") + choices.count("push, mixed")]
    return "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"


def _strip_xml_header(svg):
    at = svg.find("<svg")
    return svg[at:] if at >= 0 else svg


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m shardgraph.report", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="--stats JSON files")
    parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
    parser.add_argument("--label", action="append", help="a label per run, in order")
    parser.add_argument("--title", default="shardgraph runs")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.runs):
        parser.error("give one --label per run")
    try:
        page = render(args.runs, labels=args.label, title=args.title)
    except (OSError, ValueError, KeyError) as e:
        print(f"shardgraph.report: {e}", file=sys.stderr)
        return 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
