"""The results table of run.sh: medians of the runs, ratios to frota, the targets.

usage: table.py RUNS_DIR RECORDS VEHICLES SIZE FILES_PER_TRIGGER COMMAND > results.md
Everything printed is computed from the JSON files measure.py, frota and compare.py
wrote in RUNS_DIR.
"""

import glob
import json
import os
import platform
import statistics
import sys
import time

SYSTEMS = [
    ("frota", "frota replay (CSV, default: 1 state partition)"),
    ("frota_p2", "frota replay --partitions 2 (CSV)"),
    ("frota_archive", "frota replay of the GTFS-RT archive (its own input)"),
    ("duckdb", "DuckDB batch recomputation (reconcile's SQL, without its diff)"),
    ("spark", "Spark Structured Streaming (PySpark, local[2])"),
]


def load(path):
    with open(path) as f:
        return json.load(f)


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_gb = int(f.readline().split()[1]) / 1048576
    return (f"{os.cpu_count()} cores ({cpu}), {mem_gb:.0f} GB, "
            f"{platform.system()} {platform.release()}")


def main():
    runs_dir, records, vehicles, size, files_per_trigger, command = sys.argv[1:7]
    records = int(records)
    rows = {}
    for name, _ in SYSTEMS:
        walls, cpus, rsss, oks, finished = [], [], [], [], []
        for path in sorted(glob.glob(f"{runs_dir}/{name}-[0-9]*.json")):
            if not path.rsplit("-", 1)[1].split(".")[0].isdigit() or path.count(".") > 1:
                continue
            m = load(path)
            wall = m["wall_s"]
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
            else:
                oks.append(m["rc"] == 0)
            walls.append(wall)
            cpus.append(m["cpu_s"])
            rsss.append(m["peak_rss_bytes"])
        if walls:
            rows[name] = {"runs": len(walls), "finished": all(finished),
                          "wall_s": statistics.median(walls),
                          "cpu_s": statistics.median(cpus),
                          "rss_mb": statistics.median(rsss) / 1e6, "ok": all(oks)}
    compare_path = f"{runs_dir}/spark-compare.json"
    compare = load(compare_path) if os.path.exists(compare_path) else None

    frota = rows["frota"]
    out = []
    out.append(f"## frota vs its peers: {vehicles}-vehicle simulated day ({size})\n")
    out.append(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
               f"{machine()}, shared (load at the end: "
               f"{open('/proc/loadavg').read().split()[0]})")
    files = len(glob.glob(f"{runs_dir}/../day-{vehicles}/csv/part-*.csv"))
    out.append(f"- command: `{command}`; input: {records:,} records (positions, faults "
               f"included) in {files} CSV files; medians of {frota['runs']} run(s)")
    version = os.environ.get("FROTA_BIN_VERSION", "frota")
    out.append(f"- frota: `{version}`; Spark: pyspark 4.3.0, local[2], 4 GB driver, "
               f"maxFilesPerTrigger {files_per_trigger}\n")
    out.append("| system | wall s | positions/s | CPU s | peak RSS MB | frota's throughput ÷ this "
               "| this RSS ÷ frota's | results |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, label in SYSTEMS:
        if name not in rows:
            continue
        r = rows[name]
        rate = records / r["wall_s"]
        ratio = r["wall_s"] / frota["wall_s"]
        rss_ratio = r["rss_mb"] / frota["rss_mb"]
        if not r["finished"]:
            # Ended before the end of its input: its time is a lower bound.
            out.append(f"| {label} | > {r['wall_s']:.0f} | < {rate:,.0f} | {r['cpu_s']:.1f} | "
                       f"≥ {r['rss_mb']:,.0f} | ≥ {ratio:.1f}× | ≥ {rss_ratio:.2f} | "
                       f"DID NOT FINISH |")
            continue
        if name == "spark":
            check = ("equal to frota's" if compare and compare["equal"] else "DIFFERENT")
        elif name == "duckdb":
            check = "equal (reconcile)" if r["ok"] else "DIFFERENT"
        else:
            check = "ok" if r["ok"] else "FAILED"
        out.append(f"| {label} | {r['wall_s']:.1f} | {rate:,.0f} | {r['cpu_s']:.1f} | "
                   f"{r['rss_mb']:,.0f} | {ratio:.1f}× | {rss_ratio:.2f} | {check} |")
    out.append("")
    targets = []

    def bound(name):
        return "" if rows[name]["finished"] else "≥ "

    def verdict(name, ratio, target):
        if ratio >= target:
            return "met"
        if not rows[name]["finished"]:
            return "not known: it did not finish"
        return f"MISSED (by a factor {target / ratio:.1f})"

    if "spark" in rows:
        ratio = rows["spark"]["wall_s"] / frota["wall_s"]
        rss = frota["rss_mb"] / rows["spark"]["rss_mb"]
        targets.append(f"- frota ≥ 50× Spark's throughput: {bound('spark')}{ratio:.1f}× — "
                       f"{verdict('spark', ratio, 50)}")
        targets.append(f"- frota's peak RSS ≤ 1/10 of Spark's: {rss:.2f} — "
                       f"{'met' if rss <= 0.1 else f'MISSED (by a factor {rss / 0.1:.1f})'}")
    if "duckdb" in rows:
        ratio = rows["duckdb"]["wall_s"] / frota["wall_s"]
        targets.append(f"- frota ≥ 5× the DuckDB batch recomputation: "
                       f"{bound('duckdb')}{ratio:.1f}× — "
                       f"{verdict('duckdb', ratio, 5)}")
    out.append("Targets (issue 9, ratios from this run):\n")
    out.extend(targets)
    if compare:
        out.append("\nSpark against frota, row by row (compare.py): " + "; ".join(
            f"{t['table']} {t['frota_rows']}/{t['spark_rows']} rows, "
            f"{t['missing'] + t['extra'] + t['different']} differ" for t in compare["tables"]))
        fc, sc = compare["frota_counts"], compare["spark_counts"]
        out.append(f"accepted {fc['accepted']:,} / {sc['accepted']:,}; late {fc['late']} / "
                   f"{sc['late']}, duplicate {fc['duplicate']:,} / {sc['duplicate']:,} "
                   f"(frota / Spark; see bench/compare/README.md on `late`).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
