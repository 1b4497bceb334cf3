"""frota's rules and jobs in PySpark Structured Streaming: the Spark peer.

usage: spark_job.py INPUT_DIR OUT_DIR CHECKPOINT_DIR [FILES_PER_TRIGGER]

Reads the Rio archive CSV files of bench/compare/to_csv.py with the file source
(maxFilesPerTrigger), event time `timestamp_gps`, a 6-minute watermark, and runs, per
vehicle in `applyInPandasWithState` (event-time timeouts), what semantics.md asks of
frota without geometry:
- rules 1-3 (as frota's Rio archive CSV reader and job apply them), 5 duplicate,
  6 jump (120 km/h from the last accepted position), 7 late (event time at or before
  the watermark of the micro-batch it arrives in: Spark's watermark, see README.md);
- per key, records buffered until the watermark passes them, then taken in
  event-time order (source order breaks ties) — as frota's engine does;
- speed (segments by local cell-hour and by route-hour), fleet hours, stops, trips.
Output rows, appended to Parquet per micro-batch: finished stops and trips, and
partial sums of the aggregates (summed when read, as frota's views sum partitions).

End of input: Spark has no such thing for a file stream, so run.sh puts one marker
row (vehicle `__end_of_input__`, year 2100) in a last file; it moves the watermark past
everything and every open stop, trip and buffer is flushed, as frota does at the end.
"""

import math
import pickle
import sys

import numpy as np
import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupStateTimeout
from pyspark.sql.types import (BinaryType, DoubleType, IntegerType, LongType, StringType,
                               StructField, StructType)

ZONE = "America/Sao_Paulo"
END_MARKER = "__end_of_input__"
EARTH_RADIUS_M = 6371008.8
RAD = math.pi / 180.0
MAX_SPEED_KMH = 120.0
SEGMENT_GAP_US = 300_000_000
STOP_RADIUS_M = 50.0
STOP_MIN_US = 300_000_000
TRIP_GAP_US = 900_000_000
FUTURE_US = 30_000_000
STALE_US = 300_000_000
NUMBER = r"^\s*-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?\s*$"

OUT_FIELDS = [
    ("kind", StringType()), ("vehicle_id", StringType()), ("route_id", StringType()),
    ("local_date", StringType()), ("hour", IntegerType()), ("cell_x", LongType()),
    ("cell_y", LongType()), ("n", LongType()), ("mm", LongType()), ("us", LongType()),
    ("start_us", LongType()), ("end_us", LongType()), ("lat", DoubleType()),
    ("lon", DoubleType()), ("lat2", DoubleType()), ("lon2", DoubleType()),
    ("trip_id", StringType()), ("trip_start_date", StringType()),
    ("direction_id", IntegerType()), ("reason", StringType())]
OUT_SCHEMA = StructType([StructField(n, t) for n, t in OUT_FIELDS])
OUT_NAMES = [n for n, _ in OUT_FIELDS]
STATE_SCHEMA = StructType([StructField("blob", BinaryType())])


def haversine_m(lat1, lon1, lat2, lon2):
    phi1 = lat1 * RAD
    phi2 = lat2 * RAD
    s1 = math.sin((phi2 - phi1) / 2)
    s2 = math.sin((lon2 - lon1) * RAD / 2)
    a = s1 * s1 + math.cos(phi1) * math.cos(phi2) * s2 * s2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(min(max(a, 0.0), 1.0)))


def row(kind, **values):
    out = dict.fromkeys(OUT_NAMES)
    out["kind"] = kind
    out.update(values)
    return out


class KeyState:
    """Everything one vehicle carries between micro-batches (pickled into Spark state)."""

    def __init__(self):
        self.pending = []        # (event_us, seq, lat, lon, route, trip, tsd, direction)
        self.last_seen_us = None  # newest released event time (rule 5)
        self.last_acc = None     # (event_us, lat, lon) of the last accepted (rule 6)
        self.fleet_hour = None   # last (date, hour) this vehicle was counted in
        self.stop = None         # [anchor_us, lat, lon, route, last_us, positions]
        self.trips = {}          # (trip, tsd) -> [first_us, lat, lon, route, dir, last_us,
                                 #                 lat, lon, positions, mm]


def local_hours(event_us):
    local = pd.to_datetime(np.asarray(event_us, dtype="int64"), unit="us", utc=True)
    local = local.tz_convert(ZONE)
    return local.strftime("%Y-%m-%d").tolist(), local.hour.tolist()


def end_stop(state, vehicle_id, out):
    stop = state.stop
    if stop is not None and stop[4] - stop[0] >= STOP_MIN_US:
        out.append(row("stop", vehicle_id=vehicle_id, route_id=stop[3], start_us=stop[0],
                       end_us=stop[4], lat=stop[1], lon=stop[2], n=stop[5]))
    state.stop = None


def end_trip(key, trip, vehicle_id, out):
    out.append(row("trip", vehicle_id=vehicle_id, trip_id=key[0], trip_start_date=key[1],
                   start_us=trip[0], lat=trip[1], lon=trip[2], route_id=trip[3],
                   direction_id=trip[4], end_us=trip[5], lat2=trip[6], lon2=trip[7],
                   n=trip[8], mm=trip[9]))


def release(state, vehicle_id, watermark_us, out, counts):
    """Runs rules 5-6 and the jobs over the pending records at or before the watermark."""
    ready = [r for r in state.pending if r[0] <= watermark_us]
    if not ready:
        return
    state.pending = [r for r in state.pending if r[0] > watermark_us]
    ready.sort(key=lambda r: (r[0], r[1]))
    dates, hours = local_hours([r[0] for r in ready])
    cells = {}
    lines = {}
    fleet = {}
    for (t, _seq, lat, lon, route, trip_id, tsd, direction), date, hour in zip(
            ready, dates, hours):
        if state.last_seen_us is not None and t == state.last_seen_us:
            counts["duplicate"] = counts.get("duplicate", 0) + 1
            continue
        state.last_seen_us = t
        last = state.last_acc
        d = 0.0
        if last is not None:
            d = haversine_m(last[1], last[2], lat, lon)
            if d / ((t - last[0]) / 1e6) * 3.6 > MAX_SPEED_KMH:
                counts["jump"] = counts.get("jump", 0) + 1
                continue
        counts["accepted"] = counts.get("accepted", 0) + 1
        state.last_acc = (t, lat, lon)
        # fleet hours: one vehicle per hour it has positions in, and the positions
        f = fleet.setdefault((date, hour), [0, 0])
        f[1] += 1
        if state.fleet_hour != (date, hour):
            state.fleet_hour = (date, hour)
            f[0] += 1
        # speed: a segment from the previous accepted position within 300 s
        if last is not None and 0 < t - last[0] <= SEGMENT_GAP_US:
            mm = int(round(d * 1000.0))
            us = t - last[0]
            key = (date, hour, math.floor(lon / 0.005), math.floor(lat / 0.005))
            c = cells.setdefault(key, [0, 0, 0])
            c[0] += 1
            c[1] += mm
            c[2] += us
            c = lines.setdefault((route, date, hour), [0, 0, 0])
            c[0] += 1
            c[1] += mm
            c[2] += us
        # stops: runs within 50 m of their anchor, gaps of at most 300 s
        stop = state.stop
        if stop is not None and (t - stop[4] > SEGMENT_GAP_US or
                                 haversine_m(stop[1], stop[2], lat, lon) > STOP_RADIUS_M):
            end_stop(state, vehicle_id, out)
            stop = None
        if stop is None:
            state.stop = [t, lat, lon, route, t, 1]
        else:
            stop[4] = t
            stop[5] += 1
        # trips: positions of one (trip_id, start date) at most 900 s apart
        if trip_id and tsd:
            key = (trip_id, tsd)
            trip = state.trips.get(key)
            if trip is not None and t - trip[5] > TRIP_GAP_US:
                end_trip(key, trip, vehicle_id, out)
                trip = None
            if trip is None:
                direction = None if direction != direction else int(direction)  # NaN: none
                state.trips[key] = [t, lat, lon, route, direction, t, lat, lon, 1, 0]
            else:
                trip[9] += int(round(haversine_m(trip[6], trip[7], lat, lon) * 1000.0))
                trip[5], trip[6], trip[7] = t, lat, lon
                trip[8] += 1
    for (date, hour, cx, cy), (n, mm, us) in cells.items():
        out.append(row("cell", local_date=date, hour=hour, cell_x=cx, cell_y=cy, n=n, mm=mm,
                       us=us))
    for (route, date, hour), (n, mm, us) in lines.items():
        out.append(row("line", route_id=route, local_date=date, hour=hour, n=n, mm=mm, us=us))
    for (date, hour), (vehicles, positions) in fleet.items():
        out.append(row("fleet", local_date=date, hour=hour, n=vehicles, us=positions))


def close_finished(state, vehicle_id, watermark_us, out):
    """Emits what the watermark has made final: stops (W >= t(b) + 300 s), trips."""
    if state.pending:
        return
    if state.stop is not None and watermark_us >= state.stop[4] + STOP_MIN_US:
        end_stop(state, vehicle_id, out)
    for key in [k for k, trip in state.trips.items() if watermark_us >= trip[5] + TRIP_GAP_US]:
        end_trip(key, state.trips.pop(key), vehicle_id, out)


def per_vehicle(key, batches, state):
    vehicle_id = key[0]
    watermark_us = state.getCurrentWatermarkMs() * 1000
    if vehicle_id == END_MARKER:
        if state.exists:
            state.remove()
        return
    ks = KeyState()
    if state.exists:
        # Plain builtins in the state: the class lives in __main__, which pickle cannot name.
        ks.__dict__.update(pickle.loads(state.get[0]))
    out = []
    counts = {}
    if not state.hasTimedOut:
        for pdf in batches:
            valid = pdf["reason"].isna()
            rejected = pdf.loc[~valid, "reason"].value_counts()
            for reason, n in rejected.items():
                counts[reason] = counts.get(reason, 0) + int(n)
            ok = pdf.loc[valid]
            late = ok["event_us"] <= watermark_us
            if late.any():
                counts["late"] = counts.get("late", 0) + int(late.sum())
                ok = ok.loc[~late]
            ks.pending.extend(zip(ok["event_us"].tolist(), ok["seq"].tolist(),
                                  ok["lat"].tolist(), ok["lon"].tolist(),
                                  ok["route_id"].tolist(), ok["trip_id"].tolist(),
                                  ok["trip_start_date"].tolist(),
                                  ok["direction_id"].tolist()))
    release(ks, vehicle_id, watermark_us, out, counts)
    close_finished(ks, vehicle_id, watermark_us, out)
    for reason, n in counts.items():
        out.append(row("count", vehicle_id=vehicle_id, reason=reason, n=n))
    state.update((pickle.dumps(ks.__dict__, protocol=pickle.HIGHEST_PROTOCOL),))
    # Wake up when the watermark can have made something final here.
    horizon = [r[0] for r in ks.pending]
    if ks.stop is not None:
        horizon.append(ks.stop[4] + STOP_MIN_US)
    horizon.extend(trip[5] + TRIP_GAP_US for trip in ks.trips.values())
    if horizon:
        state.setTimeoutTimestamp(max(max(horizon) // 1000 + 1, state.getCurrentWatermarkMs() + 1))
    if out:
        yield pd.DataFrame(out, columns=OUT_NAMES)


def main():
    input_dir, out_dir, checkpoint = sys.argv[1:4]
    files_per_trigger = sys.argv[4] if len(sys.argv) > 4 else "4"
    spark = (SparkSession.builder.master("local[2]").appName("frota-peer")
             .config("spark.driver.memory", "4g")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.streaming.stateStore.providerClass",
                     "org.apache.spark.sql.execution.streaming.state."
                     "HDFSBackedStateStoreProvider")
             .getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    columns = ["seq", "id_veiculo", "timestamp_gps", "timestamp_captura", "latitude",
               "longitude", "servico", "trip_id", "data", "direction"]
    schema = StructType([StructField(c, StringType()) for c in columns])
    raw = (spark.readStream.schema(schema).option("header", "true")
           .option("maxFilesPerTrigger", files_per_trigger).csv(input_dir))

    vid = F.coalesce(F.trim(F.col("id_veiculo")), F.lit(""))
    lat_text = F.trim(F.coalesce(F.col("latitude"), F.lit("")))
    lon_text = F.trim(F.coalesce(F.col("longitude"), F.lit("")))
    lat = F.expr("try_cast(trim(latitude) AS DOUBLE)")
    lon = F.expr("try_cast(trim(longitude) AS DOUBLE)")
    gps_text = F.trim(F.coalesce(F.col("timestamp_gps"), F.lit("")))
    cap_text = F.trim(F.coalesce(F.col("timestamp_captura"), F.lit("")))
    event = F.expr("try_cast(trim(timestamp_gps) AS TIMESTAMP)")
    ingest = F.expr("try_cast(trim(timestamp_captura) AS TIMESTAMP)")
    event_us = F.unix_micros(event)
    ingest_us = F.unix_micros(ingest)
    reason = (F.when(vid == "", "missing_vehicle_id")
              .when((lat_text == "") | (lon_text == ""), "missing_coordinates")
              .when(~lat_text.rlike(NUMBER) | ~lon_text.rlike(NUMBER), "malformed_record")
              .when((lat < -90) | (lat > 90), "latitude_out_of_range")
              .when((lon < -180) | (lon > 180), "longitude_out_of_range")
              .when((lat == 0) & (lon == 0), "null_island")
              .when(gps_text == "", "missing_timestamp")
              .when(event.isNull(), "malformed_record")
              .when(cap_text == "", "missing_timestamp")
              .when(ingest.isNull(), "malformed_record")
              .when(event_us > ingest_us + FUTURE_US, "future")
              .when(ingest_us - event_us > STALE_US, "stale"))
    records = raw.select(
        vid.alias("vehicle_id"), F.col("seq").cast("long").alias("seq"),
        reason.alias("reason"), lat.alias("lat"), lon.alias("lon"),
        event_us.alias("event_us"),
        F.coalesce(F.trim(F.col("servico")), F.lit("")).alias("route_id"),
        F.coalesce(F.trim(F.col("trip_id")), F.lit("")).alias("trip_id"),
        F.coalesce(F.regexp_replace(F.trim(F.col("data")), "-", ""), F.lit(""))
        .alias("trip_start_date"),
        F.when(F.trim(F.col("direction")) == "I", 0)
        .when(F.trim(F.col("direction")) == "V", 1).alias("direction_id"),
        # Only records that passed rules 1-3 move the watermark (semantics-notes.md).
        F.when(reason.isNull(), event).alias("watermark_time"))
    out = (records.withWatermark("watermark_time", "6 minutes")
           .groupBy("vehicle_id")
           .applyInPandasWithState(per_vehicle, OUT_SCHEMA, STATE_SCHEMA, "append",
                                   GroupStateTimeout.EventTimeTimeout))
    query = (out.writeStream.format("parquet").option("path", out_dir)
             .option("checkpointLocation", checkpoint).outputMode("append")
             .trigger(availableNow=True).start())
    query.awaitTermination()
    progress = query.recentProgress
    print(f"spark batches={len(progress)} "
          f"input_rows={sum(p['numInputRows'] for p in progress)}", file=sys.stderr)
    spark.stop()


if __name__ == "__main__":
    main()
