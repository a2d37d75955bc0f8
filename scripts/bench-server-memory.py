#!/usr/bin/env python3
"""The server's resident memory at each step of a gallery's life, one step at a time (issue 15.5):
the start (with its background build of the columns body), a first visit's columns, a move and the
rebuild of the next version's body once the gallery is quiet, and --windows windows opening the
gallery and following 20 moves. The kernel's high-water mark (VmHWM) is reset before each step
(/proc/PID/clear_refs), so each step's peak is its own.

    swift build -c release --product gallery && swift build -c release --product gallery-bench && \\
      .venv/bin/python scripts/bench-server-memory.py [--items 1000000] [--windows 10]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_page", ROOT / "scripts" / "bench-page.py")
bp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bp)


def status(pid):
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--windows", type=int, default=10)
    args = ap.parse_args()
    bp.require("bench-server-memory", browser=None, gallery_bench=True, images=False)
    tmp = Path(tempfile.mkdtemp(prefix="gallery-mem-"))
    data = tmp / "data"
    port = bp.free_port()
    base = f"http://127.0.0.1:{port}"

    def serve():
        p = subprocess.Popen([str(bp.GALLERY), "serve", "--port", str(port), "--data", str(data), "--log-level", "warning"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                return p
            except Exception:
                time.sleep(0.1)
        sys.exit("the server did not start")

    p = serve()                                    # the sample gallery (the seed's model), then stop
    p.terminate(); p.wait(10)
    out = subprocess.run([str(bp.GALLERY_BENCH), "seed", "--data", str(data), "--like", "1", "--items", str(args.items),
                          "--sections", str(max(1, args.items // 10000))], check=True, capture_output=True, timeout=1800)
    gallery = int(out.stdout.decode().split()[-1])
    subprocess.run([str(bp.GALLERY), "user", "add", bp.ADMIN[0], "--admin", "--password-stdin", "--data", str(data)],
                   input=(bp.ADMIN[1] + "\n").encode(), check=True, capture_output=True)
    p = serve()
    bp.call(base, "POST", "/api/login", {"name": bp.ADMIN[0], "password": bp.ADMIN[1]})
    rows = []

    def step(name, action, settle=0.0):
        Path(f"/proc/{p.pid}/clear_refs").write_text("5")
        t0 = time.time()
        action()
        deadline = t0 + settle
        while time.time() < deadline:
            time.sleep(0.1)
        rss, peak = status(p.pid)
        rows.append((name, rss, peak))
        print(f"{name}: RSS {rss:.0f} MB, peak {peak:.0f} MB", file=sys.stderr)

    # The start: the body of the most active gallery is built (and compressed) in the background.
    start = time.time()
    while time.time() - start < 30 and status(p.pid)[1] < 50:
        time.sleep(0.1)
    time.sleep(10)
    rss, peak = status(p.pid)
    rows.append(("start (the columns body built and compressed in the background)", rss, peak))
    cols = {}
    step("a first visit's columns (binary, compressed)", lambda: cols.update(bp.columns(base, gallery)))
    ids, version = cols["id"], cols["version"]

    def move():
        bp.call(base, "POST", f"/api/galleries/{gallery}/batch",
                {"baseVersion": version, "operations": [{"op": "move", "items": [ids[3]], "to": {"after": ids[100]}}]})
    step("a move, then the next version's body rebuilt once quiet (5 s)", move, settle=5)
    if args.windows:
        state = {}
        step(f"{args.windows} windows open, following 20 moves",
             lambda: state.update(zip(("idle", "now", "peak", "events"), bp.server_windows(base, gallery, p.pid, args.windows))))
    p.terminate(); p.wait(30)
    print(f"\n{args.items:,} items, {bp.GALLERY}:\n\n| step | RSS after | peak during |\n| --- | ---: | ---: |")
    for name, rss, peak in rows:
        print(f"| {name} | {rss:.0f} MB | {peak:.0f} MB |")
    subprocess.run(["rm", "-rf", str(tmp)])


if __name__ == "__main__":
    main()
