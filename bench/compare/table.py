"""The results of run.sh as markdown: medians of the runs, ratios to frota, the targets, the
cost curve.

usage: table.py RUNS_DIR --records N --vehicles N --size NAME --files-per-trigger N
                --command TEXT [--curve "N 2N 4N 8N"] > results.md
Everything printed is computed from the JSON files measure.py, frota, engine_ceiling and
compare.py wrote in RUNS_DIR. Standard library only.
"""

import argparse
import glob
import json
import os
import platform
import statistics
import time

from runs import load, measurements

SYSTEMS = [
    ("frota", "frota replay (CSV, default: 1 state partition)"),
    ("ceiling", "frota engine ceiling (validation and jobs alone, on records decoded "
                "beforehand)"),
    ("frota_p2", "frota replay --partitions 2 (CSV)"),
    ("frota_archive", "frota replay of the GTFS-RT archive (its own input)"),
    ("duckdb", "DuckDB batch recomputation (reconcile's SQL, without its diff)"),
    ("spark", "Spark Structured Streaming (PySpark, local[2])"),
]
# A curve is "no faster than linear" when every size's ratio to 1x is at most its records'
# ratio times this: one run of each on a shared machine varies by a few percent.
LINEAR_TOLERANCE = 1.10


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_gb = int(f.readline().split()[1]) / 1048576
    return (f"nproc {len(os.sched_getaffinity(0))} ({cpu}), {mem_gb:.0f} GB RAM, "
            f"{platform.system()} {platform.release()}, host {platform.node().split('.')[0]}")


def median_row(items, finished, oks):
    """The medians of a system's runs: items are (wall s, CPU s, peak RSS bytes)."""
    walls, cpus, rsss = zip(*items)
    return {"runs": len(items), "finished": all(finished), "ok": all(oks),
            "wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus),
            "rss_mb": statistics.median(rsss) / 1e6}


def system_row(runs_dir, name):
    items, finished, oks, decoded = [], [], [], []
    for path, m in measurements(runs_dir, name):
        wall, cpu = m["wall_s"], m["cpu_s"]
        done = m["rc"] == 0 or (name == "duckdb" and m["rc"] == 1)
        finished.append(done)
        if not done:
            oks.append(False)
        elif name == "duckdb":
            # The recomputation alone: reconcile's diff against the stream is not work
            # a batch job would do, so its phase is taken out of the wall time.
            report = load(path.replace(".json", ".reconcile.json"))
            wall -= report["phase_seconds"].get("compare.sql", 0.0)
            oks.append(report["equal"])
        elif name == "ceiling":
            # Only the pipeline's part is the ceiling: decoding is outside its timing.
            ceiling = load(path.replace(".json", ".out.json"))
            wall, cpu = ceiling["seconds"], ceiling["cpu_seconds"]
            decoded.append(ceiling["rss_after_decode_bytes"])
            oks.append(True)  # run.sh stopped had its counts differed from the replay's
        else:
            oks.append(m["rc"] == 0)
        items.append((wall, cpu, m["peak_rss_bytes"]))
    if not items:
        return None
    row = median_row(items, finished, oks)
    if decoded:
        row["decoded_mb"] = statistics.median(decoded) / 1e6
    return row


def peers_table(args, rows, out):
    frota = rows["frota"]
    files = len(glob.glob(f"{args.runs_dir}/../day-{args.vehicles}/csv/part-*.csv"))
    out.append(f"- input: {args.records:,} records (positions, faults included) in {files} CSV "
               f"files, the {args.vehicles}-vehicle day; every figure is the median of "
               f"{frota['runs']} run(s)")
    out.append(f"- Spark: pyspark 4.3.0, local[2], 4 GB driver, maxFilesPerTrigger "
               f"{args.files_per_trigger}\n")
    out.append("| system | wall s | positions/s | CPU s | peak RSS MB | wall ÷ frota's "
               "| CPU ÷ frota's | RSS ÷ frota's | results |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, label in SYSTEMS:
        if name not in rows:
            continue
        r = rows[name]
        rate = args.records / r["wall_s"]
        ratios = (r["wall_s"] / frota["wall_s"], r["cpu_s"] / frota["cpu_s"],
                  r["rss_mb"] / frota["rss_mb"])
        if not r["finished"]:
            # Ended before the end of its input: its time is a lower bound.
            out.append(f"| {label} | > {r['wall_s']:.0f} | < {rate:,.0f} | ≥ {r['cpu_s']:.1f} "
                       f"| ≥ {r['rss_mb']:,.0f} | "
                       + " | ".join(f"≥ {x:.2f}" for x in ratios) + " | DID NOT FINISH |")
            continue
        if name == "spark":
            check = "equal to frota's" if args.compare and args.compare["equal"] else "DIFFERENT"
        elif name == "duckdb":
            check = "equal (reconcile)" if r["ok"] else "DIFFERENT"
        elif name == "ceiling":
            check = "counts = frota replay's"
        else:
            check = "ok" if r["ok"] else "FAILED"
        out.append(f"| {label} | {r['wall_s']:.1f} | {rate:,.0f} | {r['cpu_s']:.1f} | "
                   f"{r['rss_mb']:,.0f} | " + " | ".join(f"{x:.2f}" for x in ratios)
                   + f" | {check} |")
    out.append("")
    if "ceiling" in rows:
        c = rows["ceiling"]
        out.append(f"The ceiling's time and CPU are the pipeline's alone (Offer, Advance, "
                   f"Finish, rows counted and dropped; no decoding, no sink); its peak RSS is "
                   f"the whole process, {c['decoded_mb']:,.0f} MB of it the day's decoded "
                   f"records held in memory before the timing starts. frota replay takes "
                   f"{frota['wall_s'] / c['wall_s']:.1f}× the ceiling's time.\n")
    targets_and_checks(args, rows, out)


def targets_and_checks(args, rows, out):
    frota = rows["frota"]

    def bound(name):
        return "" if rows[name]["finished"] else "≥ "

    def shown(value, target):
        # One decimal, or as many as it takes to tell a miss from the target (49.99× is
        # not 50×).
        for digits in (1, 2, 3):
            text = f"{value:.{digits}f}"
            if (value < target) == (float(text) < target):
                return text
        return f"{value:.4f}"

    def missed(factor):
        return f"MISSED (by a factor {factor:.2f})" if factor >= 1.005 else \
            f"MISSED (by a factor {factor:.4f})"

    def verdict(name, ratio, target):
        if ratio >= target:
            return "met"
        if not rows[name]["finished"]:
            return "not known: it did not finish"
        return missed(target / ratio)

    def at_least(label, name, target):
        ratio = rows[name]["wall_s"] / frota["wall_s"]
        return (f"- frota ≥ {target}× {label}: {bound(name)}{shown(ratio, target)}× — "
                f"{verdict(name, ratio, target)}")

    def rss_at_most(fraction):
        rss = frota["rss_mb"] / rows["spark"]["rss_mb"]
        return (f"- frota's peak RSS ≤ 1/{round(1 / fraction)} of Spark's: "
                f"{rss:.3f} — "
                f"{'met' if rss <= fraction else missed(rss / fraction)}")

    targets = []
    if "spark" in rows:
        targets.append(at_least("Spark's throughput", "spark", 50))
        targets.append(rss_at_most(0.1))
    if "duckdb" in rows:
        targets.append(at_least("the DuckDB batch recomputation's throughput", "duckdb", 5))
    out.append("Targets (ratios from this run):\n")
    out.extend(targets)
    targets = []
    if "ceiling" in rows:
        ratio = frota["wall_s"] / rows["ceiling"]["wall_s"]
        targets.append(f"- frota replay ≤ 2× the engine ceiling's wall time: "
                       f"{shown(ratio, 2.0)}× — "
                       f"{'met' if ratio <= 2.0 else missed(ratio / 2.0)}")
    if "spark" in rows:
        targets.append(at_least("Spark's throughput", "spark", 100))
        targets.append(rss_at_most(0.05))
    if "duckdb" in rows:
        targets.append(at_least("the DuckDB batch recomputation's throughput", "duckdb", 10))
    if targets:
        out.append("\nStricter targets (ratios from this run):\n")
        out.extend(targets)
    compare = args.compare
    if compare:
        out.append("\nSpark against frota, row by row (compare.py): " + "; ".join(
            f"{t['table']} {t['frota_rows']}/{t['spark_rows']} rows, "
            f"{t['missing'] + t['extra'] + t['different']} differ" for t in compare["tables"]))
        fc, sc = compare["frota_counts"], compare["spark_counts"]
        out.append(f"accepted {fc['accepted']:,} / {sc['accepted']:,}; late {fc['late']} / "
                   f"{sc['late']}, duplicate {fc['duplicate']:,} / {sc['duplicate']:,} "
                   f"(frota / Spark; see bench/compare/README.md on `late`).")


def curve_table(args, sizes, out):
    out.append(f"\n### Cost curve: frota replay of the GTFS-RT archive at 1×, 2×, 4×, 8× the "
               f"day, vehicles scaled\n")
    points = []
    for n in sizes:
        items, finished = [], []
        record_counts = []
        for path, m in measurements(args.runs_dir, f"curve-{n}"):
            finished.append(m["rc"] == 0)
            items.append((m["wall_s"], m["cpu_s"], m["peak_rss_bytes"]))
            if m["rc"] == 0:
                record_counts.append(load(path.replace(".json", ".report.json"))["records"])
        skipped = f"{args.runs_dir}/curve-{n}.skipped"
        if not items or not record_counts:
            reason = open(skipped).read().strip() if os.path.exists(skipped) else "did not finish"
            points.append((n, None, reason))
            continue
        row = median_row(items, finished, finished)
        row["records"] = record_counts[0]
        points.append((n, row, None))
    base = points[0][1] if points and points[0][1] else None
    runs = next((p[1]["runs"] for p in points if p[1]), 0)
    out.append(f"Medians of {runs} run(s) per size. Ratios are to the 1× day.\n")
    out.append("| size | vehicles | records | wall s | records/s | CPU s | peak RSS MB "
               "| records ÷ 1× | wall ÷ 1× | CPU ÷ 1× | RSS ÷ 1× |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    linear = {"wall time": True, "CPU time": True, "peak memory": True}
    measured = 0
    for i, (n, row, reason) in enumerate(points):
        label = f"{2 ** i}×"
        if row is None:
            out.append(f"| {label} | {n:,} | | | | | | | | | {reason} |")
            continue
        rate = row["records"] / row["wall_s"]
        cells = f"| {label} | {n:,} | {row['records']:,} | {row['wall_s']:.1f} | {rate:,.0f} | " \
                f"{row['cpu_s']:.1f} | {row['rss_mb']:,.0f} |"
        if base is None or not row["finished"]:
            out.append(cells + " | | | " + ("|" if row["finished"] else "DID NOT FINISH |"))
            continue
        records_ratio = row["records"] / base["records"]
        ratios = {"wall time": row["wall_s"] / base["wall_s"],
                  "CPU time": row["cpu_s"] / base["cpu_s"],
                  "peak memory": row["rss_mb"] / base["rss_mb"]}
        for what, ratio in ratios.items():
            linear[what] &= ratio <= records_ratio * LINEAR_TOLERANCE
        measured += 1
        out.append(cells + f" {records_ratio:.2f} | "
                   + " | ".join(f"{r:.2f}" for r in ratios.values()) + " |")
    out.append("")
    if measured < 2:
        out.append("Growth: not known (fewer than two sizes measured).")
        return

    says = ", ".join(f"{what} grows {'no faster' if ok else 'FASTER'} than linearly"
                     for what, ok in linear.items())
    out.append(f"Growth over the {measured} sizes measured: {says} (linear: each size's ratio "
               f"to 1× at most its records' ratio × {LINEAR_TOLERANCE:.2f}; wall time is the "
               f"one load from other work on the machine moves most).")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs_dir")
    parser.add_argument("--records", type=int, required=True)
    parser.add_argument("--vehicles", type=int, required=True)
    parser.add_argument("--size", required=True)
    parser.add_argument("--files-per-trigger", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--curve", default="")
    args = parser.parse_args()
    compare_path = f"{args.runs_dir}/spark-compare.json"
    args.compare = load(compare_path) if os.path.exists(compare_path) else None
    rows = {name: row for name, _ in SYSTEMS
            if (row := system_row(args.runs_dir, name)) is not None}

    title = "frota vs its peers" if "frota" in rows else "frota's cost curve"
    out = [f"## {title}: {args.vehicles}-vehicle simulated day ({args.size})\n"]
    out.append(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
               f"{machine()}; load average at the end "
               f"{open('/proc/loadavg').read().split()[0]} (the machine is shared)")
    out.append(f"- command: `{args.command}`")
    out.append(f"- frota: `{os.environ.get('FROTA_BIN_VERSION', 'frota')}`")
    if "frota" in rows:
        peers_table(args, rows, out)
    if args.curve:
        curve_table(args, [int(n) for n in args.curve.split()], out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
