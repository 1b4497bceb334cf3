"""The JSON API of `frota serve` against its OpenAPI 3.1 description.

openapi-spec-validator checks src/frota/serve/openapi.json; then a simulated morning is
replayed (with its GTFS: departures, headways and alerts) and `frota serve` runs on it;
its `/openapi.json` must be the repository's file, and schemathesis calls every operation
with generated requests, every check but unsupported_method (below): the run fails on a
server error or a response that does not conform to its schema (status, content type,
headers, body).

    python openapi_test.py
Environment: FROTA_BIN, FROTA_SOURCE_DIR, FROTA_TEST_TMP (a folder).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

FROTA = os.environ["FROTA_BIN"]
SPEC = Path(os.environ["FROTA_SOURCE_DIR"]) / "src/frota/serve/openapi.json"
VENV_BIN = Path(sys.executable).parent


def run(*args: str | Path, cwd: Path | None = None) -> None:
    started = time.monotonic()
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd)
    shown = " ".join(str(a) for a in args)
    if done.returncode != 0:
        sys.exit(f"FAILED ({done.returncode}): {shown}\n{done.stdout[-5000:]}\n{done.stderr[-5000:]}")
    print(f"{time.monotonic() - started:6.1f} s  {shown}")
    if "schemathesis" in shown:
        print(done.stdout[-3000:])


def main() -> None:
    work = Path(os.environ["FROTA_TEST_TMP"]) / "openapi"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run(VENV_BIN / "openapi-spec-validator", SPEC)
    sim = work / "sim"
    run(FROTA, "simulate", "--date", "2024-06-05", "--vehicles", "60", "--hours", "6-8",
        "--out", sim)
    db = work / "day.duckdb"
    run(FROTA, "replay", f"archive:{sim}", "--gtfs", sim / "gtfs", "--db", db)
    log = work / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen([FROTA, "serve", "--db", str(db), "--gtfs", str(sim / "gtfs"),
                                   "--listen", "127.0.0.1:0"], stdout=out,
                                  stderr=subprocess.STDOUT)
    try:
        base = None
        deadline = time.monotonic() + 60
        while base is None and time.monotonic() < deadline:
            if server.poll() is not None:
                sys.exit(f"FAILED: frota serve exited {server.returncode}:\n{log.read_text()}")
            found = re.search(r"serving (http://127\.0\.0\.1:\d+)/", log.read_text())
            base = found and found.group(1)
            time.sleep(0.2)
        if base is None:
            sys.exit(f"FAILED: frota serve did not start:\n{log.read_text()}")
        with urllib.request.urlopen(f"{base}/openapi.json", timeout=10) as response:
            if response.read() != SPEC.read_bytes():
                sys.exit("FAILED: /openapi.json is not src/frota/serve/openapi.json")
        # unsupported_method also sends QUERY, a method cpp-httplib refuses (400) before any
        # handler runs; every method it knows gets 405 with Allow (serve_test.cc checks it).
        run(VENV_BIN / "schemathesis", "run", f"{base}/openapi.json", "--checks", "all",
            "--exclude-checks", "unsupported_method", "--max-examples", "25", "--seed", "1",
            "--no-color", cwd=work)  # its cache folder, .schemathesis, goes there
    finally:
        server.terminate()
        server.wait(timeout=60)
    print("OK: the description is valid and every response conforms to it")


if __name__ == "__main__":
    main()
