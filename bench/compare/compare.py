"""Checks that the Spark peer computed what frota computed (equal work), row by row.

usage: compare.py FROTA_EXPORT_DIR SPARK_OUTPUT_DIR OUT.json

FROTA_EXPORT_DIR is `frota export --format csv` of frota's run; SPARK_OUTPUT_DIR the
Parquet that spark_job.py appended (its partial sums are summed here, as frota's views
sum partitions). Compared: record counts per outcome, speed_cells, speed_lines,
fleet_hours, stops, trips. Tolerances, and only these: distance sums may differ by 1 mm
per segment summed (frota's reconcile allows the same); Spark's watermark moves once per
micro-batch, frota's with every record, so a record frota calls `late` can reach Spark's
rule 5 instead (the simulated day's late responses repeat positions already seen, so
they become duplicates): `late` + `duplicate` must be equal, and every other count
exact. Prints a summary and writes it as JSON; exit 1 when the results differ beyond
that.
"""

import datetime as dt
import json
import sys

import pandas as pd

REASONS = ["missing_vehicle_id", "missing_coordinates", "latitude_out_of_range",
           "longitude_out_of_range", "null_island", "missing_timestamp", "malformed_record",
           "future", "stale", "jump", "late", "duplicate"]


def iso(us):
    return dt.datetime.fromtimestamp(us / 1e6, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def diff_table(name, frota, spark, key, exact, mm=None, mm_tolerance=None):
    """Rows missing/extra/different between two frames indexed by `key`."""
    frota, spark = frota.copy(), spark.copy()
    for column in key + exact + ([mm] if mm else []):
        # Spark's union rows come back as floats where a kind leaves a column empty.
        if pd.api.types.is_numeric_dtype(frota[column]):
            kind = "int64" if pd.api.types.is_integer_dtype(frota[column]) else "float64"
            spark[column] = spark[column].astype(kind)
        else:
            spark[column] = spark[column].astype(str)
            frota[column] = frota[column].astype(str)
    f = frota.set_index(key)
    s = spark.set_index(key)
    missing = len(f.index.difference(s.index))
    extra = len(s.index.difference(f.index))
    both = f.index.intersection(s.index)
    f, s = f.loc[both], s.loc[both]
    bad = pd.Series(False, index=both)
    for column in exact:
        bad |= f[column].values != s[column].values
    if mm:
        bad |= (f[mm] - s[mm]).abs() > f[mm_tolerance]
    return {"table": name, "frota_rows": int(len(frota)), "spark_rows": int(len(spark)),
            "missing": int(missing), "extra": int(extra), "different": int(bad.sum())}


def main():
    frota_dir, spark_dir, out_path = sys.argv[1:4]
    spark = pd.read_parquet(spark_dir)
    by_kind = {kind: part for kind, part in spark.groupby("kind")}
    tables = []

    # Outcome counts: frota's quality table summed over hours, Spark's count rows summed.
    quality = pd.read_csv(f"{frota_dir}/quality.csv", float_precision="round_trip")
    frota_counts = {"accepted": int(quality["accepted"].sum()),
                    "duplicate": int(quality["duplicates"].sum())}
    for reason in REASONS[:-1]:
        frota_counts[reason] = int(quality[reason].sum())
    spark_counts = by_kind["count"].groupby("reason")["n"].sum().to_dict()
    spark_counts = {r: int(spark_counts.get(r, 0)) for r in frota_counts}
    count_problems = [r for r in frota_counts if r not in ("late", "duplicate")
                      and frota_counts[r] != spark_counts[r]]
    if (frota_counts["late"] + frota_counts["duplicate"] !=
            spark_counts["late"] + spark_counts["duplicate"]):
        count_problems.append("late+duplicate")

    cells_f = pd.read_csv(f"{frota_dir}/speed_cells.csv", float_precision="round_trip")
    cells_f["mm"] = (cells_f["distance_m"] * 1000).round().astype("int64")
    cells_f["dur"] = cells_f["duration_s"].round(3)
    cells_s = (by_kind["cell"].groupby(["local_date", "hour", "cell_x", "cell_y"])
               [["n", "mm", "us"]].sum().reset_index())
    cells_s = cells_s.rename(columns={"n": "segments"})
    cells_s["dur"] = (cells_s["us"] / 1e6).round(3)
    tables.append(diff_table("speed_cells", cells_f, cells_s,
                             ["local_date", "hour", "cell_x", "cell_y"],
                             ["segments", "dur"], "mm", "segments"))

    lines_f = pd.read_csv(f"{frota_dir}/speed_lines.csv", float_precision="round_trip",
                          dtype={"route_id": str})
    lines_f["mm"] = (lines_f["distance_m"] * 1000).round().astype("int64")
    lines_f["dur"] = lines_f["duration_s"].round(3)
    lines_s = (by_kind["line"].groupby(["route_id", "local_date", "hour"])
               [["n", "mm", "us"]].sum().reset_index()).rename(columns={"n": "segments"})
    lines_s["dur"] = (lines_s["us"] / 1e6).round(3)
    tables.append(diff_table("speed_lines", lines_f, lines_s,
                             ["route_id", "local_date", "hour"], ["segments", "dur"],
                             "mm", "segments"))

    fleet_f = pd.read_csv(f"{frota_dir}/fleet_hours.csv", float_precision="round_trip")
    fleet_s = (by_kind["fleet"].groupby(["local_date", "hour"])[["n", "us"]].sum()
               .reset_index().rename(columns={"n": "vehicles", "us": "positions"}))
    tables.append(diff_table("fleet_hours", fleet_f, fleet_s, ["local_date", "hour"],
                             ["vehicles", "positions"]))

    stops_f = pd.read_csv(f"{frota_dir}/stops.csv", float_precision="round_trip",
                          dtype={"vehicle_id": str, "route_id": str})
    stops_s = by_kind["stop"].copy()
    stops_s["start_time"] = stops_s["start_us"].map(iso)
    stops_s["end_time"] = stops_s["end_us"].map(iso)
    stops_s = stops_s.rename(columns={"n": "positions", "lat": "anchor_lat",
                                      "lon": "anchor_lon"})
    for frame in (stops_f, stops_s):
        frame["route_id"] = frame["route_id"].fillna("")
    tables.append(diff_table("stops", stops_f, stops_s, ["vehicle_id", "start_time"],
                             ["end_time", "positions", "anchor_lat", "anchor_lon",
                              "route_id"]))

    trips_f = pd.read_csv(f"{frota_dir}/trips.csv", float_precision="round_trip",
                          dtype={"vehicle_id": str, "trip_id": str, "trip_start_date": str,
                                 "route_id": str})
    trips_f["mm"] = (trips_f["distance_m"] * 1000).round().astype("int64")
    trips_f["mm_tolerance"] = trips_f["positions"] - 1
    trips_s = by_kind["trip"].copy()
    trips_s["first_time"] = trips_s["start_us"].map(iso)
    trips_s["last_time"] = trips_s["end_us"].map(iso)
    trips_s = trips_s.rename(columns={"n": "positions"})
    tables.append(diff_table("trips", trips_f, trips_s,
                             ["vehicle_id", "trip_id", "trip_start_date", "first_time"],
                             ["last_time", "positions"], "mm", "mm_tolerance"))

    equal = not count_problems and all(
        t["missing"] == 0 and t["extra"] == 0 and t["different"] == 0 for t in tables)
    result = {"equal": equal, "frota_counts": frota_counts, "spark_counts": spark_counts,
              "count_problems": count_problems, "tables": tables}
    with open(out_path, "w") as out:
        json.dump(result, out, indent=1)
    for t in tables:
        print(f"  {t['table']:12} frota {t['frota_rows']:>8} spark {t['spark_rows']:>8} "
              f"missing {t['missing']} extra {t['extra']} different {t['different']}",
              file=sys.stderr)
    print(f"  counts: late frota {frota_counts['late']} spark {spark_counts['late']}, "
          f"duplicate frota {frota_counts['duplicate']} spark {spark_counts['duplicate']}; "
          f"problems: {count_problems or 'none'}", file=sys.stderr)
    sys.exit(0 if equal else 1)


if __name__ == "__main__":
    main()
