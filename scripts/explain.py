#!/usr/bin/env python3
"""Explains a run from its --stats JSON: per step, what the planner chose,
what it predicted and what happened (time, bytes, requests), so a user can see
why a run was fast or slow. A run over MPI adds, per rank, its link and each
step's exchange: bytes received against the exchange model's, and seconds
against the network's share of them (the rest is waiting for slower ranks).

    scripts/explain.py STATS.json [--intervals]
"""
import json
import signal
import sys


def fmt_bytes(n):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000.0
    return str(n)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    show_intervals = "--intervals" in sys.argv
    with open(args[0]) as f:
        run = json.load(f)
    steps = run["steps"]
    print(f"{run['app']} on {run['graph']}: {run['vertices']} vertices, {run['edges']} edges; "
          f"--io {run.get('io_mode', '?')}, backend {run['io_backend']}, {run['seconds']:.3f} s, "
          f"{fmt_bytes(run['bytes_read'])} read in {run['requests']} requests, cache {fmt_bytes(run.get('cache_bytes', 0))} "
          f"(decoded {fmt_bytes(run.get('decoded_cache_bytes', 0))}, {run.get('cache_evictions', 0)} evictions)")
    print("cached: chunks served from memory / of those, already decoded")
    print(f"{'it':>4} {'mode':<5} {'active':>10} {'sel/int':>7} {'cached':>9} {'pred s':>8} {'meas s':>8} {'err':>6} "
          f"{'pred bytes':>10} {'read':>10} {'req':>6} {'io wait':>7} {'eff':>5}  why")
    errors = []
    for s in steps:
        measured = s["seconds"]
        predicted = s["predicted_seconds"]
        err = (predicted - measured) / measured if measured > 0 else 0.0
        if s["bytes_read"] > 0 and s["mode"] == "pull" or (s["mode"] == "push" and s["selective_intervals"] == 0 and s["bytes_read"] > 0):
            errors.append(err)
        read = s["bytes_read"]
        eff = f"{min(1.0, s['useful_bytes'] / read):.2f}" if s["mode"] == "push" and read > 0 else "-"
        why = ""
        if s["pull_seconds"] >= 0:
            why = f"pull {s['pull_seconds']:.4f}s vs push {s['push_seconds']:.4f}s"
            if s.get("read_ahead_bytes", 0) > 0:
                why += f", read ahead {fmt_bytes(s['read_ahead_bytes'])}"
        elif s["io_mode"] != "auto":
            why = f"forced --io {s['io_mode']}"
        sel = f"{s['selective_intervals']}/{s['intervals'] - s['intervals_skipped']}" if s["mode"] == "push" else "-"
        print(f"{s['iteration']:>4} {s['mode'] + ('ᵀ' if s['reversed'] else ''):<5} {s['active_vertices']:>10} {sel:>7} "
              f"{str(s['cached_chunks']) + '/' + str(s.get('decoded_cache_chunks', 0)):>9} {predicted:>8.4f} {measured:>8.4f} {err:>+6.0%} {fmt_bytes(s['predicted_bytes']):>10} "
              f"{fmt_bytes(read):>10} {sum(s['device_requests']):>6} {s['io_wait_seconds']:>7.3f} {eff:>5}  {why}")
        if show_intervals:
            for d in s["interval_decisions"]:
                print(f"       interval {d['interval']}: full {d['full_seconds']:.4f}s, selective {d['selective_seconds']:.4f}s -> {d['choice']}")
    if errors:
        errors.sort()
        print(f"full-scan steps reading from disk: prediction error median {errors[len(errors) // 2]:+.0%}, "
              f"range {errors[0]:+.0%} .. {errors[-1]:+.0%} over {len(errors)} steps")
    if "ranks" in run:
        explain_ranks(run["ranks"])
    return 0


def explain_ranks(ranks):
    for r in ranks:
        net = r.get("network", {})
        rate = net.get("bytes_per_second", 0)
        print(f"rank {r['rank']}: {r['vertices_owned']} vertices owned, {r['arcs']} arcs; link measured at "
              f"{fmt_bytes(rate)}/s, {net.get('latency_seconds', 0) * 1e6:.0f} us a collective; "
              f"received {fmt_bytes(r['bytes_received'])}, exchange {r['exchange_seconds']:.3f} s")
        print(f"{'it':>4} {'received':>10} {'model':>10} {'exch s':>8} {'net s':>8} {'waiting':>8}")
        for s in r["steps"]:
            waiting = max(0.0, s["exchange_seconds"] - s.get("network_seconds", 0))
            print(f"{s['iteration']:>4} {fmt_bytes(s['bytes_received']):>10} "
                  f"{fmt_bytes(s.get('predicted_bytes_received', 0)):>10} {s['exchange_seconds']:>8.4f} "
                  f"{s.get('network_seconds', 0):>8.4f} {waiting:>8.4f}")


if __name__ == "__main__":
    sys.exit(main())
