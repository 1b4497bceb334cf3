"""Runs one command and measures it as a whole: wall time, CPU time, peak RSS of its tree.

usage: measure.py RESULT.json [--timeout SECONDS] -- COMMAND [ARG...]

Peak RSS is the largest sum of the resident sets of the command and all its
descendants, sampled from /proc every 0.2 s: Spark is a Python driver, a JVM and
Python workers, and `/usr/bin/time -v` would only report the largest single process.
CPU time is user + system of the command and the descendants it waited for
(getrusage of the children). Before the command starts, every write still pending in
the page cache is written out (sync), untimed. The command's stdout and stderr pass
through. With --timeout, a command still running then is ended (SIGTERM to its process
group, SIGKILL 30 s later) and recorded as `timed_out`: the table shows it as not
finished, its time as a lower bound.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def tree_rss(root, cpu_seen):
    """Sum of the resident sets of `root` and its descendants, in bytes.

    Also notes each process's CPU seconds so far in `cpu_seen` (pid -> (name, seconds)),
    which tells where a tree's time goes (e.g. Spark's JVM against its Python workers).
    """
    children = {}
    rss = {}
    cpu = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/statm") as f:
                resident = int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        ppid = int(fields[1])
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        cpu[int(entry)] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = resident * PAGE
    total = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        if pid in cpu:
            cpu_seen[pid] = cpu[pid]
        todo.extend(children.get(pid, []))
    return total


def main():
    result_path = sys.argv[1]
    separator = sys.argv.index("--")
    options = sys.argv[2:separator]
    timeout = float(options[options.index("--timeout") + 1]) if "--timeout" in options else None
    command = sys.argv[separator + 1:]
    # Writes an earlier run left in the page cache are written out first, untimed: the
    # kernel would otherwise write them back during this run, on its time (the Rio day's
    # replay took 5.7 s instead of 5.0 right after 3 GB of someone else's writes).
    os.sync()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    # Its own process group, so that a timeout ends the whole tree it started.
    process = subprocess.Popen(command, start_new_session=True)
    peak = 0
    cpu_seen = {}
    timed_out = False
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid, cpu_seen))
        elapsed = time.monotonic() - start
        if timeout is not None and elapsed > timeout and not timed_out:
            timed_out = True
            print(f"measure.py: timed out after {timeout:.0f} s: {command[0]}", file=sys.stderr)
            os.killpg(process.pid, signal.SIGTERM)
        if timed_out and elapsed > timeout + 30:
            os.killpg(process.pid, signal.SIGKILL)
        time.sleep(0.2)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # A short command can end between two samples: its own maxrss is a lower bound.
    peak = max(peak, after.ru_maxrss * 1024)
    by_name = {}
    for name, seconds in cpu_seen.values():
        by_name[name] = round(by_name.get(name, 0.0) + seconds, 1)
    # A JVM that its parent never waited for is missing from getrusage: take the larger.
    cpu = max(cpu, sum(by_name.values()))
    with open(result_path, "w") as out:
        json.dump({"command": command, "rc": process.returncode, "wall_s": round(wall, 3),
                   "timed_out": timed_out, "cpu_s": round(cpu, 3), "peak_rss_bytes": peak,
                   "cpu_s_by_process_name": by_name}, out)
    sys.exit(process.returncode)


if __name__ == "__main__":
    main()
