"""The /metrics endpoints of frota, as Prometheus reads them (`promtool check metrics`).

`frota collect --metrics` (the collector) and `frota run --metrics` (a live run: the
collector's metrics and the engine's) poll a loopback server that serves the Caltrain
capture for a few seconds; /metrics is read while they run. The run fails when promtool
reports anything, when the process metrics are not real values (resident memory and open
files above 0), or when the request (and, for run, the epoch commit) durations are not
histograms that counted something.

    python metrics_test.py collect|run
Environment: FROTA_BIN, FROTA_SHARED_DATA, FROTA_TEST_TMP (a folder).
"""

from __future__ import annotations

import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

FROTA = os.environ["FROTA_BIN"]
CAPTURE = Path(os.environ["FROTA_SHARED_DATA"]) / "gtfs-rt/caltrain/ct-vehicle-positions.pb"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"


class Feed(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the handler's name)
        body = CAPTURE.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def scrape(process: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + 60
    port = None
    while time.monotonic() < deadline and port is None:
        if process.poll() is not None:
            sys.exit(f"FAILED: frota exited {process.returncode}:\n{log.read_text()}")
        found = re.search(r"metrics endpoint listening address=\S+:(\d+)", log.read_text())
        port = found and int(found.group(1))
        time.sleep(0.2)
    if port is None:
        sys.exit(f"FAILED: no metrics endpoint in the log:\n{log.read_text()}")
    time.sleep(4)  # a few polls (and, for run, epochs)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return response.read().decode()


def value(text: str, sample: str) -> float:
    found = re.search(rf"^{re.escape(sample)} (\S+)$", text, re.M)
    if not found:
        sys.exit(f"FAILED: no sample {sample}")
    return float(found.group(1))


def main() -> None:
    command = sys.argv[1]
    work = Path(os.environ["FROTA_TEST_TMP"]) / f"metrics-{command}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    feed = f"ct=gtfs-rt,http://127.0.0.1:{server.server_address[1]}/vehicle-positions.pb"
    args = [FROTA, command, "--feed", feed, "--interval", "1", "--archive", work / "bronze",
            "--reports", work / "reports", "--no-medallion", "--metrics", "127.0.0.1:0",
            "--for", "15"]
    if command == "run":
        args += ["--db", work / "live.duckdb"]
    log = work / "frota.log"
    with log.open("w") as out:
        process = subprocess.Popen([str(a) for a in args], stdout=out, stderr=subprocess.STDOUT)
    try:
        text = scrape(process, log)
    finally:
        process.terminate()
        process.wait(timeout=60)
        server.shutdown()
    (work / "metrics.txt").write_text(text)
    check = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                           text=True)
    failures = []
    if check.returncode != 0 or check.stdout.strip() or check.stderr.strip():
        failures.append(f"promtool check metrics ({check.returncode}): {check.stdout}"
                        f"{check.stderr}")
    for gauge in ("frota_process_resident_memory_bytes", "frota_process_open_fds"):
        if value(text, gauge) <= 0:
            failures.append(f"{gauge} is {value(text, gauge)}")
    histograms = ['frota_collect_request_duration_seconds_count{feed="ct"}']
    if command == "run":
        histograms.append("frota_engine_epoch_commit_seconds_count")
    for count in histograms:
        if value(text, count) <= 0:
            failures.append(f"{count} is {value(text, count)}")
        if f'{count.replace("_count", "_bucket").split("{")[0]}' not in text:
            failures.append(f"no buckets for {count}")
    print(f"{len(text.splitlines())} lines of metrics; resident memory "
          f"{value(text, 'frota_process_resident_memory_bytes') / 1e6:.0f} MB, open files "
          f"{value(text, 'frota_process_open_fds'):.0f}; "
          + ", ".join(f"{c} {value(text, c):.0f}" for c in histograms))
    if failures:
        sys.exit("FAILED:\n- " + "\n- ".join(failures))
    print("OK: promtool check metrics reports nothing")


if __name__ == "__main__":
    main()
