"""frota's cleaned GTFS-Realtime feed, checked by the MobilityData rules (gtfs-rt-validator).

One dataset per run (the ctest names it): it is replayed into a fresh DuckDB with its
static GTFS, `frota export --gtfs-rt` writes the feed minute by minute, and
gtfs-rt-validator reads every message against the same GTFS. The run fails on any ERROR
the input did not already have:

- an ERROR the validator also finds in the input feed (a GTFS-Realtime capture) is the
  input's;
- E004 (a route_id that routes.txt lacks) is the input's only for the route codes given
  with --unresolved: codes of the position feed that name no line (GARAGEM), which frota
  passes on as it got them. Every message is decoded here, and E004's count must equal
  the entities carrying such a code: any other unknown route_id fails.

It also fails when the feed says too little to be worth checking (no entity, or fewer
entities naming a trip than the dataset's minimum), and, for the simulated day, on any ERROR of
gtfs-validator on the simulator's static GTFS.

    python gtfs_rt_test.py simulated|rio-brt|caltrain|sppo
Environment: FROTA_BIN, FROTA_SOURCE_DIR, FROTA_SHARED_DATA, FROTA_TEST_TMP (a folder).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from google.transit import gtfs_realtime_pb2

FROTA = os.environ["FROTA_BIN"]
SOURCE = Path(os.environ["FROTA_SOURCE_DIR"])
SHARED = Path(os.environ["FROTA_SHARED_DATA"])
VENV_BIN = Path(sys.executable).parent


def run(*args: str | Path, cwd: Path | None = None) -> float:
    started = time.monotonic()
    shown = " ".join(str(a) for a in args)
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAILED ({done.returncode}): {shown}\n{done.stdout}\n{done.stderr}")
    seconds = time.monotonic() - started
    print(f"{seconds:6.1f} s  {shown}")
    return seconds


def zip_gtfs(folder: Path, out: Path) -> Path:
    """A zip of a GTFS folder, its `.csv` tables named `.txt` (as validators expect)."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for table in sorted(folder.iterdir()):
            if table.suffix in (".txt", ".csv"):
                z.write(table, table.stem + ".txt")
    return out


def route_ids(gtfs_zip: Path) -> set[str]:
    with zipfile.ZipFile(gtfs_zip) as z, z.open("routes.txt") as f:
        text = f.read().decode("utf-8-sig").splitlines()
    return {row["route_id"] for row in csv.DictReader(text)}


def error_totals(report_dir: Path) -> dict[str, int]:
    report = json.loads((report_dir / "report.json").read_text())
    system = json.loads((report_dir / "system_errors.json").read_text())
    if system.get("notices"):
        sys.exit(f"validator system errors: {json.dumps(system['notices'])[:2000]}")
    return {n["code"]: n["totalNotices"] for n in report["notices"] if n["severity"] == "ERROR"}


def validate_rt(gtfs_zip: Path, rt: Path, out: Path) -> dict:
    run(VENV_BIN / "gtfs-rt-validator", "-gtfs", gtfs_zip, "-rt", rt, "--out", out,
        "--sort", "name")
    return json.loads((out / "report.json").read_text())


def feed_facts(rt: Path, known_routes: set[str]) -> dict:
    files = sorted(rt.iterdir()) if rt.is_dir() else [rt]
    facts = {"messages": len(files), "entities": 0, "trips": 0, "trip_instances": 0,
             "stopped_at": 0, "unknown_routes": {}}
    for path in files:
        message = gtfs_realtime_pb2.FeedMessage()
        message.ParseFromString(path.read_bytes())
        for entity in message.entity:
            facts["entities"] += 1
            vehicle = entity.vehicle
            trip = vehicle.trip
            if trip.trip_id:
                facts["trips"] += 1
            if trip.trip_id and trip.start_date and trip.start_time:
                facts["trip_instances"] += 1
            if vehicle.HasField("stop_id"):
                facts["stopped_at"] += 1
            if trip.route_id and trip.route_id not in known_routes:
                unknown = facts["unknown_routes"]
                unknown[trip.route_id] = unknown.get(trip.route_id, 0) + 1
    return facts


def check(gtfs_zip: Path, rt: Path, work: Path, *, input_rt: Path | None = None,
          unresolved: frozenset[str] = frozenset(), min_trips: int = 0) -> None:
    started = time.monotonic()
    report = validate_rt(gtfs_zip, rt, work / "report")
    validation_s = time.monotonic() - started
    errors = error_totals(work / "report")
    baseline: dict[str, int] = {}
    if input_rt is not None:
        validate_rt(gtfs_zip, input_rt, work / "input-report")
        baseline = error_totals(work / "input-report")
    facts = feed_facts(rt, route_ids(gtfs_zip))
    warnings = {n["code"]: n["totalNotices"] for n in report["notices"]
                if n["severity"] == "WARNING"}
    print(f"messages {facts['messages']}, entities {facts['entities']}, with a trip_id "
          f"{facts['trips']}, with trip_id, start_date and start_time "
          f"{facts['trip_instances']}, at a stop {facts['stopped_at']}; validation "
          f"{validation_s:.1f} s")
    print(f"input's errors {baseline}; errors {errors}; warnings {warnings}")
    failures = []
    if facts["entities"] == 0:
        failures.append("the feed has no entity")
    if facts["trips"] < min_trips:
        failures.append(f"{facts['trips']} entities name a trip, expected {min_trips} or more")
    stray = {r: n for r, n in facts["unknown_routes"].items() if r not in unresolved}
    if stray:
        failures.append(f"route_ids neither in routes.txt nor unresolvable codes: {stray}")
    for code, total in sorted(errors.items()):
        if code in baseline:
            continue
        if code == "E004" and total == sum(facts["unknown_routes"].values()) and not stray:
            continue
        samples = next(n["sampleNotices"][:3] for n in report["notices"] if n["code"] == code)
        failures.append(f"{code} x{total} (the input has none): {samples}")
    if failures:
        sys.exit("FAILED:\n- " + "\n- ".join(failures))
    print("OK: no ERROR the input did not already have")


def replay_and_export(inputs: list[Path], gtfs: Path, work: Path) -> Path:
    db = work / "day.duckdb"
    run(FROTA, "replay", *inputs, "--gtfs", gtfs, "--db", db, "--epoch-seconds", "3600")
    rt = work / "rt"
    run(FROTA, "export", "--db", db, "--gtfs", gtfs, "--gtfs-rt", rt)
    return rt


def simulated(work: Path) -> None:
    sim = work / "sim"
    run(FROTA, "simulate", "--date", "2024-06-05", "--vehicles", "60", "--hours", "6-7",
        "--out", sim)
    gtfs_zip = zip_gtfs(sim / "gtfs", work / "gtfs.zip")
    static = work / "static-report"
    run(VENV_BIN / "gtfs-validator", "-i", gtfs_zip, "-o", static, "-d", "2024-06-05")
    static_errors = [n for n in json.loads((static / "report.json").read_text())["notices"]
                     if n["severity"] == "ERROR"]
    if static_errors:
        sys.exit(f"FAILED: gtfs-validator finds ERRORs in the simulated GTFS: {static_errors}")
    print("gtfs-validator: the simulated GTFS has no ERROR")
    rt = replay_and_export([Path(f"archive:{sim}")], sim / "gtfs", work)
    check(gtfs_zip, rt, work, min_trips=100)


def rio_brt(work: Path) -> None:
    # Three morning hours of one weekday of every line: the archive's whole seven weeks
    # would make 72,000 messages.
    day = work / "gps"
    day.mkdir()
    for source in sorted((SHARED / "rio-brt-2022/gps").glob("*.csv.gz")):
        with gzip.open(source, "rt", newline="") as f, \
                gzip.open(day / source.name, "wt", newline="") as out:
            rows = csv.reader(f)
            writer = csv.writer(out)
            writer.writerow(next(rows))
            for row in rows:
                if "2022-07-25 06:00:00" <= row[4] < "2022-07-25 09:00:00":
                    writer.writerow(row)
    gtfs = SHARED / "rio-brt-2022/gtfs"
    rt = replay_and_export(sorted(day.iterdir()), gtfs, work)
    check(zip_gtfs(gtfs, work / "gtfs.zip"), rt, work, unresolved=frozenset({"9999"}),
          min_trips=100)


def caltrain(work: Path) -> None:
    capture = SHARED / "gtfs-rt/caltrain"
    gtfs_zip = capture / "ct.zip"
    rt = replay_and_export([capture / "ct-vehicle-positions.pb"], gtfs_zip, work)
    check(gtfs_zip, rt, work, input_rt=capture / "ct-vehicle-positions.pb", min_trips=10)


def sppo(work: Path) -> None:
    # The city publishes no GTFS-Realtime for its buses; the fixture's GTFS names the lines
    # of the response in route_short_name (tests/data/gtfs/README.md).
    gtfs = SOURCE / "tests/data/gtfs/sppo_lines"
    response = SHARED / "rio-api-snapshots/sppo_api_2024-06-06.json"
    rt = replay_and_export([Path(f"rio-sppo:{response}")], gtfs, work)
    not_lines = {"APOIO", "GARAGEM", "TR"} | {f"LECD{n}" for n in range(70, 90)}
    check(zip_gtfs(gtfs, work / "gtfs.zip"), rt, work, unresolved=frozenset(not_lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    datasets = {"simulated": simulated, "rio-brt": rio_brt, "caltrain": caltrain, "sppo": sppo}
    parser.add_argument("dataset", choices=datasets)
    dataset = parser.parse_args().dataset
    work = Path(os.environ["FROTA_TEST_TMP"]) / f"gtfs-rt-{dataset}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = time.monotonic()
    datasets[dataset](work)
    print(f"{dataset}: {time.monotonic() - started:.1f} s in all")


if __name__ == "__main__":
    main()
