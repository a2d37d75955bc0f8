#!/usr/bin/env python3
"""First visits only: navigation → interactive grid (`readyAt`) and the page's boot marks, a fresh
headless Chromium for each visit, on one server and one gallery, alternating between pages (an
older page's folder and bundle against the current one) and between a browser whose new window
has just opened and one whose window's own start-up work is done (`--settle` in bench-page.py).
The server reads the page from a folder this script fills before each visit, so the pages compare
on the same server, data and moment.

    swift build -c release --product gallery && swift build -c release --product gallery-bench && scripts/build-wasm.sh
    .venv/bin/python scripts/bench-visit.py --size 100000 --rounds 5 \\
        --page new=Web,.build-wasm/engine.wasm --page old=/tmp/old/Web,/tmp/old/wasm/engine.wasm --settle both

A page is NAME=WEB_FOLDER,ENGINE_WASM; its bundle is the page.js (and protocol.js) beside the engine.
`--layout waterfall,grid` opens the gallery in each layout in turn (the view the page remembers, as
bench-page.py's --open-in-layout); each visit prints the load's phases from `open()` (the page's
marks) and the frames over 20 ms in the 500 ms after ready.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_page", ROOT / "scripts" / "bench-page.py")
bp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bp)
from playwright.sync_api import sync_playwright  # noqa: E402 (bench-page.py says how to install it)

# Thumbnails the page asked for by the end of the 500 ms after ready (resource timing), and the
# frames over 20 ms in the 500 ms after ready ([ms after ready, length]).
THUMBNAILS = "performance.getEntriesByType('resource').filter((e) => e.name.includes('/image/grid.jpg') && e.startTime < window.readyAt + 500).length"
AFTER = ("window.__frames.filter(([t, d]) => t - d >= window.readyAt && t - window.readyAt < 500 && d > 20)"
         ".map(([t, d]) => [Math.round(t - window.readyAt), +d.toFixed(1)])")
# The load's phases (ms from open(): the columns in hand, the model, the engine holding the gallery,
# the first render) and the frames over 20 ms in the 500 ms after ready ([ms after ready, length]).
PHASES = ("JSON.stringify({ touchedMB: window.loadTouchedMB, warm: window.warmMarks && Object.fromEntries(Object.entries(window.warmMarks).map(([k, v]) => [k, k === 'loads' ? v : Math.round(v - window.loadMarks.start)])), phases: Object.fromEntries(Object.entries(window.loadMarks).map(([k, v]) => [k, Math.round(v - window.loadMarks.start)])), "
          "after: " + AFTER + " })")
BOOT = ("JSON.stringify(Object.fromEntries(Object.entries({ html: performance.getEntriesByType('navigation')[0].responseEnd, "
        "dom: performance.getEntriesByType('navigation')[0].domInteractive, paint: performance.getEntriesByName('first-paint')[0]?.startTime, "
        "pageJs: performance.getEntriesByName(location.origin + '/js/page.js')[0]?.responseEnd, "
        "css: Math.max(...performance.getEntriesByType('resource').filter((e) => e.name.includes('/css/')).map((e) => e.responseEnd)), ...window.bootMarks, open: window.loadMarks.start, "
        "...(([c]) => c ? { columnsAsked: c.startTime, columnsSent: c.requestStart, columnsFirstByte: c.responseStart, columnsLastByte: c.responseEnd } : {})"
        "(performance.getEntriesByType('resource').filter((e) => e.name.includes('/columns'))), "
        "fetched: window.loadMarks.fetched, engineLoaded: window.loadMarks.engine, ready: window.readyAt }).map(([k, v]) => [k, Math.round(v)])))")


def fresh_page(p, base, which):
    """A fresh browser of kind `which`, signed in, and a page in it recording every animation
    frame from its start ([end, length] in window.__frames)."""
    browser = p.chromium.launch(executable_path=bp.browser_path(which), args=["--no-sandbox"])
    ctx = browser.new_context(viewport={"width": 1200, "height": 800})
    ctx.request.post(base + "/api/login", data={"name": bp.ADMIN[0], "password": bp.ADMIN[1]}, headers={"Origin": base})
    page = ctx.new_page()
    page.set_default_timeout(120000)
    page.add_init_script("""window.__frames = []; (() => { let last = 0; const f = (t) => {
      if (last) window.__frames.push([t, t - last]); last = t; requestAnimationFrame(f); }; requestAnimationFrame(f); })();""")
    return browser, ctx, page


def visit_minimal(p, base, body, settle, which):
    """A first visit of the minimal virtualised grid showing the gallery's own thumbnails: ready,
    the frames over 20 ms in the 500 ms after it, and how many thumbnails it loaded meanwhile."""
    browser, _, page = fresh_page(p, base, which)
    page.route(base + "/minimal", bp.plain_page(body))
    waited = bp.wait_browser_quiet() if settle else 0
    page.goto(base + "/minimal", wait_until="commit")
    ready = page.evaluate(bp.READY_WAIT)
    page.wait_for_timeout(600)
    out = {"ready": round(ready), "after": page.evaluate(AFTER), "thumbnails": page.evaluate(THUMBNAILS), "waited_s": round(waited, 1)}
    browser.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--page", action="append", required=True, help="NAME=WEB_FOLDER,ENGINE_WASM (repeat)")
    ap.add_argument("--settle", choices=["off", "on", "both"], default="both",
                    help="navigate at once after the window opens (off), after its own work is done (on), or both")
    ap.add_argument("--layout", default="waterfall", help="waterfall, grid or justified, or several separated by commas")
    ap.add_argument("--minimal", action="store_true",
                    help="also visit the minimal virtualised grid (bench-page.py's physical-limit probe) with each tile showing its "
                         "own item's thumbnail, alternating with the pages: the frames after ready when the first screen's "
                         "thumbnails arrive, without any page's work")
    ap.add_argument("--browser", default="shell",
                    help="shell (chromium-headless-shell, the headless Chromium Playwright itself launches for headless; the "
                         "default), full (Debian's chromium, a new window of the whole browser), or both separated by a comma")
    args = ap.parse_args()
    browsers = args.browser.split(",")
    bp.require("bench-visit", browser=browsers, gallery_bench=args.size > 100000)  # a missing browser is said now, before the gallery is built
    pages = {}
    for spec_ in args.page:
        name, _, paths = spec_.partition("=")
        web, _, wasm = paths.partition(",")
        pages[name] = (Path(web).resolve(), Path(wasm).resolve())
        for f in (pages[name][1], pages[name][1].parent / "page.js", pages[name][1].parent / "protocol.js", pages[name][0] / "index.html"):
            if not f.exists():
                sys.exit(f"bench-visit: {f} is missing")
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.settle]
    layouts = args.layout.split(",")
    if any(k not in ("waterfall", "grid", "justified") for k in layouts):
        sys.exit(f"bench-visit: --layout takes waterfall, grid or justified, not {args.layout}")
    variants = [(name, settle, layout, b) for b in browsers for layout in layouts for name in pages for settle in modes]
    if args.minimal:
        variants += [("minimal", settle, "grid", b) for b in browsers for settle in modes]
    data = Path(tempfile.mkdtemp(prefix="bench-visit-"))
    live = data / "page"
    (live / "wasm").mkdir(parents=True)

    def use(name):
        web, wasm = pages[name]
        shutil.rmtree(live / "Web", ignore_errors=True)
        shutil.copytree(web, live / "Web")
        for f in (wasm, wasm.parent / "page.js", wasm.parent / "protocol.js"):
            shutil.copy(f, live / "wasm" / ("engine.wasm" if f == wasm else f.name))

    use(variants[0][0])
    port = bp.free_port()
    base = f"http://127.0.0.1:{port}"
    subprocess.run([str(bp.GALLERY), "user", "add", bp.ADMIN[0], "--admin", "--password-stdin", "--data", str(data / "data")],
                   input=bp.ADMIN[1].encode() + b"\n", check=True, capture_output=True, timeout=60)

    def start():
        proc = subprocess.Popen([str(bp.GALLERY), "serve", "--port", str(port), "--data", str(data / "data"), "--no-sample",
                                 "--web", str(live / "Web"), "--wasm", str(live / "wasm" / "engine.wasm")],
                                stdout=open(data / "server.log", "ab"), stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                bp.call(base, "POST", "/api/login", {"name": bp.ADMIN[0], "password": bp.ADMIN[1]})
                break
            except Exception:
                time.sleep(0.2)
        return proc

    server = start()
    results = {v: [] for v in variants}
    try:
        imgdir = data / "img"
        imgdir.mkdir()
        images = bp.make_images(imgdir, 200)
        # Above 100k the gallery is seeded from a small one, as bench-page.py does (building 100k
        # through the API first ended in 413 here: a batch over the server's limits).
        built = args.size if args.size <= 100000 else len(images)
        gid = bp.build_gallery(base, built, images)
        if args.size > built:
            server.terminate()
            server.wait(10)
            out = subprocess.run([str(bp.GALLERY_BENCH), "seed", "--data", str(data / "data"), "--like", str(gid), "--items", str(args.size),
                                  "--sections", str(max(1, args.size // 10000))], check=True, capture_output=True, timeout=1800)
            gid = int(out.stdout.decode().split()[-1])
            server = start()
        bp.warm(base, gid, str(live / "Web"))
        minimal = None
        if args.minimal:
            # The gallery's first items' thumbnails, each tile its own (the page's URLs: seeded items are at version 0).
            first = bp.columns(base, gid)["id"][:2000]
            minimal = bp.MINIMAL % (args.size, json.dumps([f"{base}/api/items/{i}/image/grid.jpg?v=0" for i in first]))
        with sync_playwright() as p:
            for r in range(args.rounds):
                for name, settle, layout, which in (variants if r % 2 == 0 else variants[::-1]):
                    if name == "minimal":
                        results[(name, settle, layout, which)].append(visit_minimal(p, base, minimal, settle, which))
                        print(f"minimal{' settled' if settle else ''} {which} (load {os.getloadavg()[0]:.2f}): {json.dumps(results[(name, settle, layout, which)][-1])}",
                              file=sys.stderr, flush=True)
                        continue
                    use(name)
                    browser, ctx, page = fresh_page(p, base, which)
                    if layout != "waterfall":
                        who = ctx.request.get(base + "/api/session").json()["user"]["id"]
                        key = f"gallery.view.u{who}.{gid}"
                        page.add_init_script(f"localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps({'kind': layout}))});")
                    waited = bp.wait_browser_quiet() if settle else 0
                    cpu0 = bp.browser_cpu_ms()
                    page.goto(f"{base}/#/g/{gid}", wait_until="commit")
                    page.evaluate(bp.READY_WAIT)  # inside the page: no Playwright script compiled during the visit
                    cpu = bp.cpu_since(cpu0)
                    page.wait_for_timeout(600)
                    boot = json.loads(page.evaluate(BOOT))
                    boot.update(json.loads(page.evaluate(PHASES)))
                    boot["thumbnails"] = page.evaluate(THUMBNAILS)
                    boot["waited_s"] = round(waited, 1)
                    boot["cpu_ms"] = {k: round(v) for k, v in cpu.items() if v}
                    browser.close()
                    results[(name, settle, layout, which)].append(boot)
                    print(f"{name}{' settled' if settle else ''} {layout} {which} (load {os.getloadavg()[0]:.2f}): {json.dumps(boot)}", file=sys.stderr, flush=True)
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(data, ignore_errors=True)
    print(f"| page | layout | browser | window | ready median (range) | engine phase median (range) | a frame over 20 ms in the 500 ms after ready (longest) | the page's code running (modules) median | CPU of Chromium's own WebUI renderer during the visit |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (name, settle, layout, which), rows in results.items():
        ready = sorted(x["ready"] for x in rows)
        if name == "minimal":
            print(f"| minimal grid, own thumbnails ({statistics.median(x['thumbnails'] for x in rows):.0f} on its first screen) | 6 columns | {which} | "
                  f"{'settled' if settle else 'window just opened'} | {statistics.median(ready):.0f} ms ({ready[0]}–{ready[-1]}) | – | "
                  f"{sum(1 for x in rows if x['after'])} of {len(rows)} ({max((d for x in rows for _, d in x['after']), default=0)} ms) | – | – |")
            continue
        webui = sorted(sum(v for k, v in x["cpu_ms"].items() if "WebUI" in k) for x in rows)
        engine = sorted(x["phases"]["engine"] - x["phases"]["model"] for x in rows)
        print(f"| {name} ({statistics.median(x['thumbnails'] for x in rows):.0f} thumbnails in the 500 ms after ready) | {layout} | {which} | {'settled' if settle else 'window just opened'} | {statistics.median(ready):.0f} ms ({ready[0]}–{ready[-1]}) | "
              f"{statistics.median(engine):.0f} ms ({engine[0]}–{engine[-1]}) | "
              f"{sum(1 for x in rows if x['after'])} of {len(rows)} ({max((d for x in rows for _, d in x['after']), default=0)} ms) | "
              f"{statistics.median(x['modules'] for x in rows):.0f} ms | {webui[0]}–{webui[-1]} ms |")


if __name__ == "__main__":
    main()
