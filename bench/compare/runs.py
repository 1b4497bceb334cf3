"""The files run.sh leaves in a runs folder: reading them, and the checks it exits on.

usage: runs.py check-ceiling FROTA_REPORT.json CEILING_OUT.json
       runs.py exit-status RUNS_DIR
check-ceiling: exit 1, saying what differs, unless the engine ceiling accepted and rejected
(by reason) exactly what frota replay's run report says. exit-status: exit 1, listing the
problems, unless every system finished and agreed with frota. Standard library only.
"""

import glob
import json
import os
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def measurements(runs_dir, name):
    """(path, measure.py's result) of each run of `name`: the files NAME-RUN.json."""
    pattern = re.compile(re.escape(name) + r"-[0-9]+\.json")
    for path in sorted(glob.glob(f"{runs_dir}/{glob.escape(name)}-*.json")):
        if pattern.fullmatch(os.path.basename(path)):
            yield path, load(path)


def check_ceiling(report_path, ceiling_path):
    report, ceiling = load(report_path), load(ceiling_path)
    problems = []
    for what, replay, engine in [
            ("records", report["records"], ceiling["records"]),
            ("accepted", report["accepted"], ceiling["accepted"]),
            ("rejected", sum(report["rejected"].values()), ceiling["rejected"])]:
        if replay != engine:
            problems.append(f"{what}: replay {replay:,}, ceiling {engine:,}")
    for reason in sorted(set(report["rejected"]) | set(ceiling["rejected_by_reason"])):
        replay = report["rejected"].get(reason, 0)
        engine = ceiling["rejected_by_reason"].get(reason, 0)
        if replay != engine:
            problems.append(f"rejected as {reason}: replay {replay:,}, ceiling {engine:,}")
    for p in problems:
        print(f"runs.py: engine ceiling against frota replay: {p}", file=sys.stderr)
    return not problems


def exit_problems(runs_dir):
    """Why run.sh should exit 1: systems that failed or differ from frota."""
    problems = []
    for path in glob.glob(f"{runs_dir}/*-*.json"):
        name = os.path.basename(path)[:-len(".json")]
        if not re.fullmatch(r".+-[0-9]+", name):
            continue  # not a measurement (a report, the ceiling's output, a comparison)
        rc = load(path)["rc"]
        # reconcile exits 1 on a difference, which its own check below reports.
        if rc != 0 and not (name.startswith("duckdb-") and rc == 1):
            problems.append(f"{name}: exit status {rc} (or timed out)")
    if glob.glob(f"{runs_dir}/spark-*.json"):
        try:
            if not load(f"{runs_dir}/spark-compare.json")["equal"]:
                problems.append("Spark's results differ from frota's")
        except OSError:
            problems.append("no comparison of Spark's results (Spark did not finish)")
    for path in glob.glob(f"{runs_dir}/duckdb-*.reconcile.json"):
        try:
            if not load(path)["equal"]:
                problems.append(f"{path}: reconcile found differences")
        except ValueError:
            pass  # did not finish: listed above
    for path in glob.glob(f"{runs_dir}/curve-*.skipped"):
        problems.append(f"{os.path.basename(path)}: a curve size was left out (no room on disk)")
    return problems


def main():
    if sys.argv[1:2] == ["check-ceiling"] and len(sys.argv) == 4:
        sys.exit(0 if check_ceiling(sys.argv[2], sys.argv[3]) else 1)
    if sys.argv[1:2] == ["exit-status"] and len(sys.argv) == 3:
        problems = exit_problems(sys.argv[2])
        for p in problems:
            print(f"run.sh: {p}", file=sys.stderr)
        sys.exit(1 if problems else 0)
    print(__doc__, file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
