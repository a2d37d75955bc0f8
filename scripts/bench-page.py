#!/usr/bin/env python3
"""The page in headless Chromium at 1k, 20k and 100k items: time from navigation to an
interactive grid, requestAnimationFrame intervals (p95, max) during a 120-step drag sweep
and during fast scrolling, and the DOM node count. Beside it, in the same run, a plain
DOM grid (every tile an element, HTML5 drag reorder by moving nodes; what DOM sortable
libraries do) at the same sizes.

    swift build -c release --product gallery && scripts/build-wasm.sh && \
      .venv/bin/python scripts/bench-page.py [--sizes 1000,20000,100000]
"""
import argparse
import http.cookiejar
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sys.exit("bench-page: Playwright is missing: run scripts/setup.sh --browser and use .venv/bin/python")

ROOT = Path(__file__).resolve().parents[1]
GALLERY = Path(os.environ.get("GALLERY_BIN", ROOT / ".build" / "release" / "gallery"))
# Sizes above --seed-above are written straight into the data folder by `gallery-bench seed`
# (the API would take many CPU-minutes to build a million items by copies).
GALLERY_BENCH = Path(os.environ.get("GALLERY_BENCH_BIN", ROOT / ".build" / "release" / "gallery-bench"))


# The browsers a benchmark can run in: `shell` (the default) is Debian's chromium-headless-shell,
# the headless Chromium Playwright itself launches for headless runs (no window UI), what issue
# 15's targets name; `full` is Debian's chromium, the whole browser in headless mode: each new
# window starts its own WebUI, the omnibox popup, 150-200 ms of CPU per 100 ms in its first
# 600 ms beside the page on two cores (BENCHMARKS.md, session 20) — a browser just started, which
# a person opening a gallery in a running browser does not wait for (`--settle` waits for it to
# end). Both are Chromium 156 from the same Debian source.
BROWSERS = {"full": "chromium", "shell": "chromium-headless-shell"}


def browser_path(which="shell"):
    """The executable of a browser of BROWSERS, or one clear line and exit when it is missing."""
    if which not in BROWSERS:
        sys.exit(f"--browser takes {' or '.join(BROWSERS)}, not {which}")
    path = shutil.which(BROWSERS[which])
    if not path:
        sys.exit(f"{BROWSERS[which]} is missing: install it with scripts/setup.sh --browser")
    return path


def require(script, browser="shell", gallery=True, gallery_bench=False, images=True):
    """Refuses, in one line and before any work, a run that would fail on a missing tool.
    `browser`: the kind of BROWSERS the run launches (or several, a list), None for none."""
    for which in ([browser] if isinstance(browser, str) else browser or []):
        if which not in BROWSERS:
            sys.exit(f"{script}: --browser takes {' or '.join(BROWSERS)}, not {which}")
        if not shutil.which(BROWSERS[which]):
            sys.exit(f"{script}: {BROWSERS[which]} is missing: install it with scripts/setup.sh --browser")
    if gallery and not GALLERY.exists():
        sys.exit(f"{script}: {GALLERY} is missing: swift build -c release --product gallery")
    if gallery_bench and not GALLERY_BENCH.exists():
        sys.exit(f"{script}: {GALLERY_BENCH} is missing (it seeds the big galleries): "
                 "swift build -c release --product gallery-bench")
    if images and not shutil.which("vips"):
        sys.exit(f"{script}: vips is missing (it makes the sample images): install it with scripts/setup.sh")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Every request is signed in (issue 10): the bench's admin is made with `gallery user add` before
# the server starts; the API client keeps its session cookie and sends the page's Origin.
ADMIN = ("bench", "bench-password-1")
COOKIES = http.cookiejar.CookieJar()
OPENER = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(COOKIES))


def call(base, method, path, body=None, raw=None, ctype="application/json"):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    headers = {"Origin": base, **({"content-type": ctype} if data else {})}
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with OPENER.open(req, timeout=600) as r:
        return json.loads(r.read() or b"null")


def make_images(folder, n):
    """n distinct small JPEGs of varied aspect ratios, made with libvips' CLI."""
    paths = []
    for i in range(n):
        w, h = [(160, 120), (120, 160), (160, 160), (200, 100), (100, 200)][i % 5]
        p = folder / f"img{i}.jpg"
        colour = f"{(i * 37) % 256} {(i * 91) % 256} {(i * 53) % 256}"
        subprocess.run(["vips", "black", str(folder / "b.v"), str(w), str(h), "--bands", "3"], check=True)
        subprocess.run(["vips", "linear", str(folder / "b.v"), str(p), "1 1 1", colour, "--uchar"], check=True)
        paths.append(p)
    return paths


def upload(base, gallery, paths):
    boundary = "benchboundary7d3f"
    body = b""
    for p in paths:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{p.name}\"\r\n"
                 f"Content-Type: image/jpeg\r\n\r\n").encode() + p.read_bytes() + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return call(base, "POST", f"/api/galleries/{gallery}/uploads", raw=body, ctype=f"multipart/form-data; boundary={boundary}")


def build_gallery(base, size, images):
    g = call(base, "POST", "/api/galleries", {"name": f"bench {size}"})
    gid = g["id"]
    upload(base, gid, images)
    # Wait until the uploads are thumbnailed, then grow by copying (k rows per copy of k items).
    for _ in range(600):
        snap = call(base, "GET", f"/api/galleries/{gid}")
        items = [i for s in snap["sections"] for i in s["items"]]
        if all(i["state"] != "pending" for i in items):
            break
        time.sleep(0.2)
    section = snap["sections"][0]["id"]
    ids = [i["id"] for i in items]
    version = snap["version"]
    while len(ids) < size:
        take = ids[: min(size - len(ids), 1000)]  # the server's default --max-batch-items
        r = call(base, "POST", f"/api/galleries/{gid}/batch",
                 {"baseVersion": version, "operations": [{"op": "copy", "items": take, "to": {"section": section}}]})
        ids += r["createdItems"]
        version = r["version"]
    return gid


# Answers window.readyAt once the page says it is ready (body[data-ready]), or fails with its
# data-error; a MutationObserver on the document (there from the commit on, before its <html>), so
# nothing of the bench's runs in the page meanwhile.
READY_WAIT = """() => new Promise((done, fail) => {
  const check = () => { const b = document.body; if (!b) return false;
    if (b.dataset.error) { fail(new Error(b.dataset.error)); return true; }
    if (b.dataset.ready === '1') { done(window.readyAt); return true; } return false; };
  if (check()) return;
  const watch = new MutationObserver(() => { if (check()) watch.disconnect(); });
  watch.observe(document, { attributes: true, subtree: true, attributeFilter: ['data-ready', 'data-error'] }); })"""


RAF_RECORDER = """() => { window.__frames = []; let last = performance.now();
  const f = (t) => { window.__frames.push(t - last); last = t; if (window.__recording) requestAnimationFrame(f); };
  window.__recording = true; requestAnimationFrame(f); }"""
RAF_STOP = "() => { window.__recording = false; return window.__frames.slice(1); }"


# --trace: long tasks (PerformanceObserver) and the time spent in the page's calls that
# touch the whole gallery, so a slow frame can be named.
TRACER = """() => { window.__trace = { long: [], spans: {} };
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__trace.long.push(Math.round(e.duration)); })
    .observe({ type: 'longtask' });
  const wrap = (obj, name, label) => { if (!obj || typeof obj[name] !== 'function') return; const f = obj[name];
    obj[name] = function (...a) { const t = performance.now(); try { return f.apply(this, a); } finally {
      const d = performance.now() - t; const s = (window.__trace.spans[label] ??= { n: 0, max: 0, total: 0 });
      s.n++; s.total += d; s.max = Math.max(s.max, d); } }; };
  const app = window.app;
  for (const n of ['reconcile', 'applyChanges', 'applyServerChanges', 'catchUp', 'commit']) wrap(app, n, 'app.' + n);
  for (const n of Object.getOwnPropertyNames(Object.getPrototypeOf(app.controller))) if (n !== 'constructor') wrap(app.controller, n, 'controller.' + n);
  for (const n of ['apply', 'encode', 'load']) wrap(app.model, n, 'model.' + n);
  wrap(app.view, 'render', 'view.render');
  // A whole arrangement handed to the engine in parts (app.reconcile): the first step (with the
  // tables' sizing on pages that make it a step), each part, and the last call (the swap).
  const replacement = app.controller.liveReplacement;
  if (replacement) app.controller.liveReplacement = function (...a) { const step = replacement.apply(this, a); let first = true;
    return Object.assign((n) => { const t = performance.now(); let done; try { return (done = step(n)); } finally {
      const d = performance.now() - t, label = done ? 'replacement finish' : first ? 'replacement first step' : 'replacement part';
      first = false;
      const s = (window.__trace.spans[label] ??= { n: 0, max: 0, total: 0 }); s.n++; s.total += d; s.max = Math.max(s.max, d); } },
      { heavy: step.heavy }); }; }"""
TRACE_TAKE = """() => { const t = window.__trace; const spans = Object.entries(t.spans).filter(([, s]) => s.max >= 1)
    .map(([k, s]) => `${k} ×${s.n} max ${s.max.toFixed(1)} ms`).join(', ');
  const out = `long tasks [${t.long.join(', ')}] ms; calls ≥ 1 ms: ${spans || 'none'}`;
  t.long = []; t.spans = {}; return out; }"""


# --chrome-trace: what Chromium's own threads do (DevTools' performance panel's categories, and
# the compositor's, viz's and the GPU process's), for scripts/trace-frames.py.
CHROME_TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame",
                           "blink", "cc", "viz", "gpu", "v8", "v8.wasm", "loading", "netlog", "toplevel", "benchmark", "blink.user_timing",
                           "disabled-by-default-v8.compile", "v8.execute"]


def stats(frames):
    if not frames:
        return {"p95": None, "max": None, "n": 0}
    s = sorted(frames)
    return {"p95": round(s[min(len(s) - 1, int(len(s) * 0.95))], 1), "max": round(s[-1], 1), "n": len(s)}


def drag_sweep(page, selector):
    box = page.locator(selector).first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.evaluate(RAF_RECORDER)
    for i in range(120):
        # A sweep across the viewport and back, through many drop positions.
        t = i / 119
        page.mouse.move(80 + 1000 * abs(1 - 2 * t), 150 + 550 * t)
        page.wait_for_timeout(16)  # about one move per frame, as a hand would
    frames = page.evaluate(RAF_STOP)
    page.mouse.move(x, y)  # back home: the drop changes nothing (keys hang Playwright mid-drag)
    page.mouse.up()
    page.wait_for_timeout(300)
    return stats(frames)


def drop_commit(page, selector, settle_ms=1500):
    """One real reorder: drag the first cell onto the seventh and drop it; frames from the
    first move until the commit, the server's answer and the reconcile have settled."""
    centers = page.evaluate("""() => [...document.querySelectorAll('#content .cell[aria-label]:not(.preview):not([hidden])')]
      .map((c) => c.getBoundingClientRect()).filter((r) => r.top + r.height / 2 > 80 && r.top + r.height / 2 < innerHeight - 40 && r.left >= 0)
      .sort((a, b) => (a.top - b.top) || (a.left - b.left)).map((r) => [r.left + r.width / 2, r.top + r.height / 2, r.width])""")
    (x0, y0, _), (x1, y1, w1) = centers[0], centers[min(5, len(centers) - 1)]
    x1 += w1 / 4
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.evaluate(RAF_RECORDER)
    page.mouse.move(x0 + 6, y0 + 6, steps=2)  # the engine lifts after 4 pt
    for i in range(1, 21):
        page.mouse.move(x0 + (x1 - x0) * i / 20, y0 + (y1 - y0) * i / 20)
        page.wait_for_timeout(16)
    page.wait_for_timeout(300)  # the last dragover's answer reaches the browser
    page.mouse.up()
    page.wait_for_timeout(settle_ms)
    return stats(page.evaluate(RAF_STOP))


def live_change(page, base, gallery, settle_ms=1500):
    """Another window's change: a move made through the API while this page records frames;
    it arrives on the live stream."""
    cols = columns(base, gallery)  # before recording: the server's work
    ids = cols["id"]
    page.evaluate(RAF_RECORDER)
    page.wait_for_timeout(100)
    call(base, "POST", f"/api/galleries/{gallery}/batch",
         {"baseVersion": cols["version"], "operations": [{"op": "move", "items": [ids[3]], "to": {"after": ids[10]}}]})
    page.wait_for_timeout(settle_ms)
    return stats(page.evaluate(RAF_STOP))


def fast_scroll(page, scroller_js):
    page.evaluate("() => { window.__scrollAt = performance.now(); performance.mark('scroll'); }")  # --trace: frames named from here
    page.evaluate(RAF_RECORDER)
    page.evaluate(f"""() => new Promise((done) => {{ const s = {scroller_js}; let n = 0;
      const step = () => {{ s.scrollTop += 400; if (++n < 180) requestAnimationFrame(step); else done(); }};
      requestAnimationFrame(step); }})""")
    return stats(page.evaluate(RAF_STOP))


PLAIN = """<!doctype html><html><body style="margin:0"><div id="s" style="height:100vh;overflow:auto">
<div id="g" style="display:grid;grid-template-columns:repeat(6,1fr);gap:6px;padding:8px"></div></div><script>
const g = document.getElementById('g'); const n = %d; const frag = document.createDocumentFragment();
for (let i = 0; i < n; i++) { const d = document.createElement('div'); d.className = 't'; d.draggable = true;
  d.style.cssText = 'aspect-ratio:1;background:hsl(' + (i * 37 %% 360) + ',50%%,60%%);border-radius:6px';
  d.innerHTML = '<img src="%s" style="width:100%%;height:100%%;object-fit:cover" loading="lazy" draggable="false"><span>' + i + '</span>';
  frag.appendChild(d); }
g.appendChild(frag); let dragged = null;
g.addEventListener('dragstart', (e) => { dragged = e.target.closest('.t'); });
g.addEventListener('dragover', (e) => { e.preventDefault(); const t = e.target.closest('.t');
  if (t && dragged && t !== dragged) { const r = t.getBoundingClientRect();
    g.insertBefore(dragged, e.clientX < r.left + r.width / 2 ? t : t.nextSibling); } });
window.readyAt = performance.now(); document.body.dataset.ready = '1';
</script></body></html>"""


# The physical-limit probe: the least a virtualised grid can do — n tiles as one typed array of
# ids, fixed square tiles in 6 columns, a small pool of absolutely positioned elements moved onto
# the visible rows on scroll, HTML5 drag reorder by moving ids in the array (copyWithin). No
# sections, layouts, engine, server data or animation: what any real grid costs beyond it is its
# own work, not the browser's. Its tiles show the thumbnails listed (a JSON array, tile of item k
# the k-th modulo its length): bench-page.py gives one (every tile the same image), bench-visit.py
# --minimal the gallery's own first thumbnails (each tile its own, as the page shows them). Ready is
# stamped after the first frame (an animation frame, then a task), as the page stamps its own.
MINIMAL = """<!doctype html><html><body style="margin:0"><div id="s" style="height:100vh;overflow:auto;position:relative">
<div id="g" style="position:relative"></div></div><script>
const s = document.getElementById('s'), g = document.getElementById('g'), n = %d, cols = 6, gap = 6, pad = 8;
const order = new Int32Array(n); for (let i = 0; i < n; i++) order[i] = i;
const thumbs = %s;
let size = 0, pool = [];
function metrics() { size = (s.clientWidth - 2 * pad - gap * (cols - 1)) / cols; g.style.height = (pad * 2 + Math.ceil(n / cols) * (size + gap)) + 'px'; }
function tile() { const d = document.createElement('div'); d.className = 't'; d.draggable = true;
  d.style.cssText = 'position:absolute;left:0;top:0;border-radius:6px;overflow:hidden';
  d.innerHTML = '<img decoding="async" style="width:100%%;height:100%%;object-fit:cover" draggable="false"><span style="position:absolute;left:4px;bottom:2px"></span>';
  g.appendChild(d); return d; }
function render() { const first = Math.max(0, Math.floor((s.scrollTop - pad) / (size + gap)) * cols);
  const last = Math.min(n, Math.ceil((s.scrollTop + s.clientHeight) / (size + gap) + 1) * cols);
  while (pool.length < last - first) pool.push(tile());
  for (let k = 0; k < pool.length; k++) { const d = pool[k], i = first + k;
    if (i >= last) { d.hidden = true; continue; } d.hidden = false; d.dataset.i = i;
    const id = order[i]; d.style.width = d.style.height = size + 'px';
    d.style.transform = 'translate(' + (pad + (i %% cols) * (size + gap)) + 'px,' + (pad + Math.floor(i / cols) * (size + gap)) + 'px)';
    d.style.background = 'hsl(' + (id * 37 %% 360) + ',50%%,60%%)'; d.lastChild.textContent = id;
    const u = thumbs[id %% thumbs.length]; if (d.firstChild.getAttribute('src') !== u) d.firstChild.src = u; } }
metrics(); render(); s.addEventListener('scroll', render, { passive: true });
let from = -1;
g.addEventListener('dragstart', (e) => { from = +e.target.closest('.t').dataset.i; });
g.addEventListener('dragover', (e) => { e.preventDefault(); const t = e.target.closest('.t'); if (!t || from < 0) return;
  const to = +t.dataset.i; if (to === from) return; const id = order[from];
  if (to > from) order.copyWithin(from, from + 1, to + 1); else order.copyWithin(to + 1, to, from);
  order[to] = id; from = to; render(); });
requestAnimationFrame(() => setTimeout(() => { window.readyAt = performance.now(); document.body.dataset.ready = '1'; }));
</script></body></html>"""


def columns(base, gallery):
    """The gallery's version and item ids from the binary columns (the form the page loads, so
    the bench makes the server build no other form)."""
    import array, gzip, struct
    req = urllib.request.Request(base + f"/api/galleries/{gallery}/columns?format=binary", headers={"Accept-Encoding": "gzip"})
    with OPENER.open(req, timeout=600) as r:
        body = r.read()
        if r.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
    assert body[:4] == b"GCB2", body[:16]
    (h,) = struct.unpack_from("<I", body, 4)
    head = json.loads(body[8:8 + h])
    n = head["count"]
    at = (8 + h + 7) // 8 * 8 + 8 * n          # after the aspects (f64, from a multiple of 8)
    ids = array.array("I" if head["idBytes"] == 4 else "d")
    assert ids.itemsize == head["idBytes"]
    ids.frombytes(body[at:at + head["idBytes"] * n])
    return {"version": head["version"], "id": [int(i) for i in ids]}


def warm(base, gallery, web):
    """The server has the gallery's body ready, as the targets assume: the columns in the form the
    page loads built and gzipped (the cache compresses in the background; asked until it answers gzip)."""
    binary = "format=binary" in (Path(web) / "js" / "early.js").read_text()
    for form in ("?format=binary" if binary else "",):
        for _ in range(600):
            req = urllib.request.Request(base + f"/api/galleries/{gallery}/columns{form}", headers={"Accept-Encoding": "gzip"})
            with OPENER.open(req, timeout=600) as r:
                body = r.read()
                if r.headers.get("Content-Encoding") == "gzip":
                    print(f"gallery {gallery}: the page's first load ({'binary' if binary else 'JSON'} columns) is {len(body):,} bytes gzipped", file=sys.stderr)
                    break
            time.sleep(0.1)


def rss_mb(pid):
    """Resident and peak resident size of a process, in MB (/proc/PID/status)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def steal_ms():
    """CPU time the machine's hypervisor took from this virtual machine so far (all CPUs, ms:
    /proc/stat's steal, 0 on a machine of its own). Bursts of it made single frames of 100-470 ms
    here (BENCHMARKS.md, session 21): a measurement is read beside the steal during it."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) * 1000 // os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0


def browser_cpu_ms():
    """CPU time (user + system, ms) used so far by this script's Chromium processes, by kind
    (browser, renderer, gpu-process, utility…): every descendant of this process whose command
    line names Chromium (the server, also a child, is not)."""
    children = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    tick = os.sysconf("SC_CLK_TCK")
    out, todo = {}, [os.getpid()]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            # Chromium rewrites its processes' titles: the arguments may come as one string.
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if not cmd or b"chrom" not in cmd[0]:
            continue
        kind = next((a[7:].decode() for a in cmd if a.startswith(b"--type=")), "browser")
        if b"--top-chrome-webui" in cmd:
            kind += " (Chromium's own WebUI)"
        out[kind] = out.get(kind, 0) + (int(stat[11]) + int(stat[12])) * 1000 / tick
    return out


def wait_browser_quiet(limit_s=15, window_s=0.25, busy_ms=25):
    """Waits until this script's Chromium processes together use under busy_ms of CPU in a
    window_s window (a new window's own start-up work done); answers the seconds waited."""
    t0 = time.time()
    while time.time() - t0 < limit_s:
        before = sum(browser_cpu_ms().values())
        time.sleep(window_s)
        if sum(browser_cpu_ms().values()) - before < busy_ms:
            break
    return time.time() - t0


def cpu_since(before):
    after = browser_cpu_ms()
    return {k: after.get(k, 0) - before.get(k, 0) for k in after}


def open_windows(base, gallery, windows, timeout):
    """`windows` windows opening the gallery as a page does: the columns (gzip accepted), then the
    live stream from that version, each counted in a thread. Answers (changes received per window,
    the open streams to close) once every stream is open."""
    import threading
    received = [0] * windows
    responses = []
    ready = threading.Barrier(windows + 1)

    def window(k):
        version = columns(base, gallery)["version"]
        stream = OPENER.open(urllib.request.Request(base + f"/api/galleries/{gallery}/events?since={version}"), timeout=timeout)
        responses.append(stream)
        ready.wait()
        try:
            for line in stream:
                if line.startswith(b"event: changes"):
                    received[k] += 1
        except Exception:
            pass

    for k in range(windows):
        threading.Thread(target=window, args=(k,), daemon=True).start()
    ready.wait()
    return received, responses


def server_windows(base, gallery, pid, windows, moves=20):
    """The server's memory with `windows` windows open on one gallery, as a page opens it: the
    columns (gzip accepted), then the live stream from that version; then `moves` moves made
    through the API reach every stream. Answers (RSS before, RSS with the windows open after the
    moves, peak RSS, events received per window)."""
    idle, lifetime_peak = rss_mb(pid)
    # The peak of this part alone: VmHWM is the process's high-water mark since it started (the
    # start-up prewarm, the page runs before); writing 5 to clear_refs resets it (Linux >= 4.0).
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        print(f"server: peak RSS before the windows (since start) {lifetime_peak:.0f} MB; reset for the windows' part", file=sys.stderr)
    except OSError as e:
        print(f"server: could not reset the peak RSS ({e}): the peak below is since start", file=sys.stderr)
    received, responses = open_windows(base, gallery, windows, timeout=600)
    cols = columns(base, gallery)
    ids, version = cols["id"], cols["version"]
    del cols
    for m in range(moves):
        version = call(base, "POST", f"/api/galleries/{gallery}/batch",
                       {"baseVersion": version, "operations": [{"op": "move", "items": [ids[3 + m]], "to": {"after": ids[100 + m]}}]})["version"]
    deadline = time.time() + 60
    while min(received) < moves and time.time() < deadline:
        time.sleep(0.1)
    now, peak = rss_mb(pid)
    for r in responses:
        r.close()
    return idle, now, peak, min(received)


def ingest_queue(base):
    """Files waiting for (or in) ingestion: the gallery_ingest_queue gauge of /metrics."""
    with OPENER.open(urllib.request.Request(base + "/metrics"), timeout=60) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("gallery_ingest_queue"):
                return float(line.split()[-1])
    return 0.0


def upload_under_windows(base, gallery, pid, windows, files, per_request=20, probe_in_process=False):
    """Issue 15's limit: `files` distinct photos uploaded into the gallery (`per_request` a
    request, one after the other, as a person dropping a folder) while `windows` windows follow
    its live stream. Meanwhile a probe (Prober: a process of its own) reads the gallery list and
    makes a single move every 100 ms: how long does the next request take? With
    `probe_in_process`, also the same probe as a thread of the bench's process, as before session
    17 (its figures as old_*). Answers a dict of figures."""
    import contextlib
    folder = Path(tempfile.mkdtemp(prefix="bench-upload-"))
    images = make_images(folder, files)
    received, responses = open_windows(base, gallery, windows, timeout=1200)
    cols = columns(base, gallery)
    ids = cols["id"]
    del cols
    with Prober(base, gallery, ids, pause_s=0.1) as probe, \
            (Prober(base, gallery, ids, in_process=True, pause_s=0.1) if probe_in_process else contextlib.nullcontext()) as old:
        t0 = time.time()
        peak = 0.0
        for start in range(0, files, per_request):
            upload(base, gallery, images[start:start + per_request])
            peak = max(peak, rss_mb(pid)[0])
        uploaded = time.time() - t0
        deadline = time.time() + 1200
        while ingest_queue(base) > 0 and time.time() < deadline:
            peak = max(peak, rss_mb(pid)[0])
            time.sleep(0.2)
        t1 = time.time()
        figures = {"probe": probe.overlapping(t0, t1)}
        if old is not None:
            figures["old"] = old.overlapping(t0, t1)
    now, hwm = rss_mb(pid)
    for r in responses:
        r.close()
    shutil.rmtree(folder, ignore_errors=True)
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")
    up = {"files": files, "uploaded_s": uploaded, "ingested_s": t1 - t0}
    for name, (reads, moves, bad) in figures.items():
        prefix = "" if name == "probe" else "old_"
        up.update({f"{prefix}reads": len(reads), f"{prefix}read_p50": q(reads, 0.5), f"{prefix}read_p99": q(reads, 0.99),
                   f"{prefix}read_max": max(reads, default=float("nan")), f"{prefix}moves": len(moves), f"{prefix}move_p50": q(moves, 0.5),
                   f"{prefix}move_p99": q(moves, 0.99), f"{prefix}move_max": max(moves, default=float("nan")), f"{prefix}not_200": bad})
    up.update({"events_min": min(received), "rss": now, "rss_peak_sampled": peak, "rss_hwm": hwm})
    return up


def session_cookie():
    return "; ".join(f"{c.name}={c.value}" for c in COOKIES)


def quick_moves(base, gallery, ids, n, threads=4, seed=15):
    """n single moves through the API, as fast as the server answers them (`threads` keep-alive
    connections posting moves without a base version: none is refused as stale). Each moves one
    item to after another, both drawn from the whole gallery. Answers (seconds, the version after)."""
    import http.client, random, threading
    from urllib.parse import urlparse
    u = urlparse(base)
    per = [n // threads + (1 if k < n % threads else 0) for k in range(threads)]
    versions, errors = [], []

    def worker(k):
        rng = random.Random(seed * 1000 + k)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
        headers = {"Origin": base, "Cookie": session_cookie(), "content-type": "application/json"}
        last = 0
        for _ in range(per[k]):
            a, b = rng.randrange(len(ids)), rng.randrange(len(ids))
            if a == b:
                b = (a + 1) % len(ids)
            body = json.dumps({"operations": [{"op": "move", "items": [ids[a]], "to": {"after": ids[b]}}]})
            conn.request("POST", f"/api/galleries/{gallery}/batch", body=body, headers=headers)
            r = conn.getresponse()
            data = r.read()
            if r.status != 200:
                errors.append((r.status, data[:200]))
                continue
            last = max(last, json.loads(data)["version"])
        versions.append(last)
        conn.close()

    t0 = time.time()
    workers = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, f"{len(errors)} moves refused, first {errors[0]}"
    return time.time() - t0, max(versions)


def probe_loop(base, gallery, ids, cookies, done, out, pause_s=0.01, seed=7):
    """The probe's requests (Prober), in whichever process runs them: the gallery list, then a
    single move of a random item of `ids` after another, every `pause_s`; each request's (kind,
    start, ms, status) goes to `out` as it ends, and None when `done` is set."""
    import http.client, random
    from urllib.parse import urlparse
    for c in cookies:
        COOKIES.set_cookie(c)
    u = urlparse(base)
    rng = random.Random(seed)
    headers = {"Origin": base, "Cookie": session_cookie(), "content-type": "application/json"}
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    while not done.is_set():
        t = time.time()
        conn.request("GET", "/api/galleries", headers=headers)
        r = conn.getresponse(); r.read()
        out.put(("read", t, (time.time() - t) * 1000, r.status))
        a, b = rng.randrange(len(ids)), rng.randrange(len(ids))
        body = json.dumps({"operations": [{"op": "move", "items": [ids[a]], "to": {"after": ids[b if b != a else (a + 1) % len(ids)]}}]})
        t = time.time()
        conn.request("POST", f"/api/galleries/{gallery}/batch", body=body, headers=headers)
        r = conn.getresponse(); r.read()
        out.put(("move", t, (time.time() - t) * 1000, r.status))
        time.sleep(pause_s)
    conn.close()
    out.put(None)


def within(requests, t0, t1):
    """The durations (ms, sorted) of the probe's requests [(start, ms, status)] that overlapped [t0, t1]."""
    return sorted(ms for t, ms, _ in requests if t <= t1 and t + ms / 1000 >= t0)


class Prober:
    """Issue 15's "next request ≤ 50 ms": while something heavy runs, another client reads the
    gallery list and makes a single move in the same gallery, one after the other, every 10 ms
    (`pause_s`); each request's start, duration and status are kept.

    The probe runs in a process of its own. Until session 17 it was a thread of the bench's
    process, and the bench's own work held the interpreter's lock (GIL) meanwhile: `json.loads`
    of a 7.9 MB catch-up answer takes ~100–300 ms in one C call, and a probe request whose answer
    arrived during it was counted that long (the 121–168 ms and 133 ms "gallery list" probes of
    sessions 15 and 16; BENCHMARKS.md, session 17). `in_process=True` runs it as a thread as
    before (bench-page's --probe-in-process: both at once, to show the difference)."""

    def __init__(self, base, gallery, ids, in_process=False, pause_s=0.01):
        import array, queue, threading, multiprocessing
        self.reads, self.moves, self.finished = [], [], False
        args = (base, gallery, ids, list(COOKIES))
        if in_process:
            self.done, self.out = threading.Event(), queue.Queue()
            self.runner = threading.Thread(target=probe_loop, args=(*args, self.done, self.out, pause_s), daemon=True)
        else:
            ctx = multiprocessing.get_context("spawn")
            self.done, self.out = ctx.Event(), ctx.Queue()
            ids = array.array("q", ids)  # pickled as one buffer, not a million ints
            self.runner = ctx.Process(target=probe_loop, args=(base, gallery, ids, list(COOKIES), self.done, self.out, pause_s), daemon=True)

    def _take(self, until=None, timeout_s=120):
        """Takes the requests reported so far; with `until`, waits for one that started after it
        (every request that overlapped an interval ending at `until` has then been reported)."""
        import queue
        deadline = time.time() + timeout_s
        while not self.finished:
            try:
                r = self.out.get(timeout=0.05 if until is not None else 0.001)
            except queue.Empty:
                if not self.runner.is_alive() and self.out.empty():
                    self.finished = True  # ended without its last word (an error: printed by it)
                    return
                if until is None or time.time() > deadline:
                    return
                continue
            if r is None:
                self.finished = True
                return
            (self.reads if r[0] == "read" else self.moves).append(r[1:])
            if until is not None and r[1] > until:
                return

    def __enter__(self):
        self.runner.start()
        self._take(until=0)  # the probe's process has started and made a request
        time.sleep(0.3)  # a few requests before, as a baseline
        return self

    def __exit__(self, *exc):
        time.sleep(0.3)
        self.done.set()
        while not self.finished:
            self._take(until=float("inf"))
        self.runner.join()

    def overlapping(self, t0, t1):
        """The requests that overlapped [t0, t1]: (the reads' ms, the moves' ms, sorted; the status
        of every request so far that was not 200)."""
        self._take(until=t1)
        return within(self.reads, t0, t1), within(self.moves, t0, t1), [s for _, _, s in self.reads + self.moves if s != 200]

    def during(self, t0, t1):
        """The requests that overlapped [t0, t1]: 'reads n, p50 / max; moves n, p50 / max' (ms), and any non-200."""
        self._take(until=t1)

        def part(xs, name):
            d = within(xs, t0, t1)
            bad = [s for t, ms, s in xs if s != 200]
            if not d:
                return f"{name}: none"
            return f"{name} {len(d)}: p50 {d[len(d) // 2]:.1f} / max {d[-1]:.1f} ms" + (f" ({len(bad)} not 200: {bad[:3]})" if bad else "")
        return part(self.reads, "gallery list") + "; " + part(self.moves, "single move")


def read_catch_up(base, gallery, since, now, results, k, start=None, hold=None):
    """Opens the live stream at `since` as a page that reconnects does and reads its events until
    one reaches version `now` (a catch-up may come in several `changes` events) or is not `changes`.
    results[k] = (the events' types, bytes, seconds from the request to the first event's end, to the last's).
    With `hold` (a threading.Event), the stream stays open, unread, until it is set (a window left open)."""
    import http.client
    from urllib.parse import urlparse
    u = urlparse(base)
    if start is not None:
        start.wait()
    t0 = time.time()
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    conn.request("GET", f"/api/galleries/{gallery}/events?since={since}", headers={"Origin": base, "Cookie": session_cookie()})
    r = conn.getresponse()
    kind, size, version, kinds, first = None, 0, None, [], None
    while True:
        line = r.fp.readline()
        if not line:
            break
        size += len(line)
        if line.startswith(b"event: "):
            kind = line[7:].strip().decode()
        elif line.startswith(b"id: "):
            version = int(line[4:])
        elif line in (b"\n", b"\r\n") and kind:
            kinds.append(kind)
            first = first or time.time() - t0
            if kind != "changes" or (version or 0) >= now:
                break
            kind = None
    kinds = f"{kinds[0]} ×{len(kinds)}" if kinds and all(x == kinds[0] for x in kinds) else ",".join(kinds)
    results[k] = (kinds, size, first, time.time() - t0)
    if hold is not None:
        hold.wait()
    conn.close()


def windows_process(base, gallery, since, now, windows, cookies, go, hold, out):
    """`windows` streams at `since` at once (read_catch_up), in a process of their own: reading
    80 MB in the probe's process held its GIL, and the probe's requests waited for it (its
    figures before session 15). Each window's results go to `out` as it catches up; the streams
    stay open until `hold` is set."""
    import threading
    for c in cookies:
        COOKIES.set_cookie(c)
    results = [None] * windows
    start = threading.Barrier(windows)

    def window(k):
        read_catch_up(base, gallery, since, now, results, k, start, hold)
    threads = [threading.Thread(target=window, args=(k,)) for k in range(windows)]
    go.wait()
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads) and any(r is None for r in results):
        time.sleep(0.005)
    out.put(results)
    for t in threads:
        t.join()


def version_now(base, gallery, recent):
    """The gallery's version now, from the changes since a recent version (the columns would make
    the server build and compress the whole body of the new version, ~1 s of CPU at 1M items in
    the background, in the middle of what is timed next)."""
    answer = call(base, "GET", f"/api/galleries/{gallery}/changes?since={recent}")
    return answer["changes"]["toVersion"] if answer.get("changes") else answer["reload"]["version"]


def reconnect_server(base, gallery, n, windows, pid, probe_in_process=False):
    """Issue 15's limit, the server's side: a window that reconnects after `n` versions. `n` single
    moves are made (quick_moves); then, with a probe reading the gallery list and moving an item
    every 10 ms, (1) GET …/changes?since=V (the catch-up the page asks for after a refused batch),
    (2) the live stream at ?since=V (what a page that comes back online opens) up to its first
    event, (3) `windows` streams at ?since=V at once, left open after their catch-up while the
    server's resident size is read (and its peak while they caught up). Answers lines of figures."""
    import threading
    cols = columns(base, gallery)
    ids, since = cols["id"], cols["version"]
    del cols
    took, now = quick_moves(base, gallery, ids, n)
    # The columns of the new version, built and compressed in the background once the gallery is
    # quiet (at 1M items most of a second of CPU), done before the probe starts: what is timed
    # below is the catch-up alone.
    t0 = time.time()
    warm(base, gallery, str(ROOT / "Web"))
    out = [f"{n:,} single moves made in {took:.1f} s ({n / took:,.0f}/s, version {since} → {now}); the columns of version {now} "
           f"ready after {time.time() - t0:.1f} s; load average {os.getloadavg()[0]:.2f}"]
    import contextlib
    with Prober(base, gallery, ids) as probe, \
            (Prober(base, gallery, ids, in_process=True) if probe_in_process else contextlib.nullcontext()) as old:
        def meanwhile(t0, t1, parsed=None):
            text = probe.during(t0, t1)
            if old is not None:
                text += f" [the probe in the bench's own process, as before session 17: {old.during(t0, t1)}]"
                for kind, xs in (("gallery list", old.reads), ("single move", old.moves)):
                    for t, ms, _ in xs:
                        if t <= t1 and t + ms / 1000 >= t0 and ms > 50:
                            print(f"  slow probe in the bench's process: {kind} from {(t - t0) * 1000:+.0f} to {(t - t0) * 1000 + ms:+.0f} ms"
                                  + (f"; the bench parsed the answer from {(parsed[0] - t0) * 1000:+.0f} to {(parsed[1] - t0) * 1000:+.0f} ms" if parsed else ""),
                                  file=sys.stderr)
            return text
        for attempt in range(2):
            t0 = time.time()
            req = urllib.request.Request(base + f"/api/galleries/{gallery}/changes?since={since}", headers={"Origin": base})
            with OPENER.open(req, timeout=600) as r:
                body = r.read()
            t1 = time.time()
            answer = json.loads(body)
            kind = "changes" if answer.get("changes") else ("reload" if answer.get("reload") else "snapshot")
            detail = f", {len(answer['changes']['stages']):,} stages" if kind == "changes" else ""
            del answer
            t2 = time.time()
            out.append(f"GET changes?since={since} ({'first' if attempt == 0 else 'again'}): {kind}{detail}, {len(body):,} bytes in {(t1 - t0) * 1000:.0f} ms "
                       f"(parsed by the bench in {(t2 - t1) * 1000:.0f} ms); meanwhile {meanwhile(t0, t1, (t1, t2))}")
            del body
        results = [None]
        now = version_now(base, gallery, now)
        t0 = time.time()
        read_catch_up(base, gallery, since, now, results, 0)
        t1 = time.time()
        kinds, size, first, last = results[0]
        out.append(f"live stream ?since={since}: events `{kinds}`, {size:,} bytes, the first whole after {first * 1000:.0f} ms, "
                   f"the last (version {now}) after {last * 1000:.0f} ms; meanwhile {meanwhile(t0, t1)}")
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")
        go, hold, answers = ctx.Event(), ctx.Event(), ctx.Queue()
        stop, peak = threading.Event(), [0.0]
        now = version_now(base, gallery, now)
        readers = ctx.Process(target=windows_process, args=(base, gallery, since, now, windows, list(COOKIES), go, hold, answers))
        readers.start()
        time.sleep(2)  # its interpreter started before the timed part
        before = rss_mb(pid)[0]

        def watch():
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb(pid)[0])
                time.sleep(0.02)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        t0 = time.time()
        go.set()
        results = answers.get(timeout=600)
        t1 = time.time()
        stop.set()
        watcher.join()
        time.sleep(0.5)
        open_rss = rss_mb(pid)[0]
        hold.set()
        readers.join(60)
        firsts = sorted(r[2] * 1000 for r in results)
        lasts = sorted(r[3] * 1000 for r in results)
        out.append(f"{windows} live streams ?since={since} at once: events `{results[0][0]}` ({results[0][1]:,} bytes each), the first "
                   f"whole after {firsts[0]:.0f}–{firsts[-1]:.0f} ms, the last after {lasts[0]:.0f}–{lasts[-1]:.0f} ms; meanwhile {meanwhile(t0, t1)}; "
                   f"server resident {before:.0f} MB before, peak {peak[0]:.0f} MB while they caught up, {open_rss:.0f} MB with the {windows} open after; "
                   f"load average {os.getloadavg()[0]:.2f}")
    return out


def poll(page, expression, timeout_s, every_s=0.05):
    """Waits until `expression` (evaluated in the page) is true; raises TimeoutError after timeout_s.
    (Playwright's wait_for_function evaluates its predicate with eval, which the page's CSP refuses.)"""
    deadline = time.time() + timeout_s
    while not page.evaluate(expression):
        if time.time() > deadline:
            raise TimeoutError(f"{expression} not true after {timeout_s:.0f} s")
        time.sleep(every_s)


def reconnect_page(p, base, gallery, n, launch, trace=False, timeout_s=300, bundle=None):
    """Issue 15's limit in the page: a window open on the gallery goes offline (Playwright's
    network emulation, and its live stream broken), `n` single moves are made by another
    client, it comes back online. Frames from back online until its model reached the server's
    version and 1.5 s more; memory after; and whether the engine's order is the server's."""
    browser = launch(p)
    ctx = browser.new_context(viewport={"width": 1200, "height": 800})
    assert ctx.request.post(base + "/api/login", data={"name": ADMIN[0], "password": ADMIN[1]}, headers={"Origin": base}).ok
    page = ctx.new_page()
    page.set_default_timeout(300000)
    if bundle:
        # Another build of the page (an older commit's page.js, for a before/after pair in one run).
        body = Path(bundle).read_bytes()
        page.route("**/js/page.js", lambda route: route.fulfill(content_type="text/javascript", body=body))
        # Its engine too when one sits beside it (another bridge protocol version would be refused).
        engine = Path(bundle).with_name("engine.wasm")
        if engine.exists():
            wasm = engine.read_bytes()
            page.route("**/engine.wasm", lambda route: route.fulfill(content_type="application/wasm", body=wasm))
    page.goto(f"{base}/#/g/{gallery}", wait_until="commit")
    page.evaluate(READY_WAIT)
    poll(page, "document.getElementById('live-state').classList.contains('on')", 60)
    page.wait_for_timeout(1000)
    v0 = page.evaluate("app.model.version")
    ctx.set_offline(True)
    # Chromium's offline emulation fails new requests but leaves an open stream open: it is broken
    # here as a dropped connection breaks it (closed, and the error the page's EventSource gets).
    # The page retries every second, and fails while offline.
    page.evaluate("() => { const s = app.live.source; s.close(); s.onerror(new Event('error')); }")
    poll(page, "!document.getElementById('live-state').classList.contains('on')", 30)
    cols = columns(base, gallery)
    ids = cols["id"]
    del cols
    took, target = quick_moves(base, gallery, ids, n)
    warm(base, gallery, str(ROOT / "Web"))  # the server's background work for the new version done first
    assert page.evaluate("app.model.version") == v0, "the page followed while offline"
    if trace:
        page.evaluate(TRACER)
    page.evaluate(RAF_RECORDER)
    load = os.getloadavg()[0]
    t0 = time.time()
    ctx.set_offline(False)
    # The engine's version (what it shows), not the model's: the model takes a catch-up's version at once.
    try:
        poll(page, f"app.model.version >= {target} && !app.catchingUp?.()", timeout_s)
    except TimeoutError as e:
        browser.close()
        return {"v0": v0, "target": target, "moves_s": took, "stuck_s": timeout_s, "load": load, "error": str(e).splitlines()[0]}
    caught = time.time() - t0
    page.wait_for_timeout(1500)
    frames = page.evaluate(RAF_STOP)
    traced = page.evaluate(TRACE_TAKE) if trace else ""
    followed = page.evaluate("JSON.stringify(app.followed)")
    cdp = ctx.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    heap = cdp.send("Runtime.getHeapUsage")["usedSize"] / 1e6
    wasm = page.evaluate("app.engine.memory.buffer.byteLength") / 1e6
    shown = page.evaluate("app.controller.snapshot().flatMap((s) => s.items)")
    server = columns(base, gallery)
    same = shown == server["id"] and page.evaluate("app.model.version") == server["version"]
    browser.close()
    return {"v0": v0, "target": target, "moves_s": took, "caught_s": caught, "frames": stats(frames),
            "long": [round(f) for f in frames if f > 33.4], "heap": heap, "wasm": wasm, "same": same,
            "followed": followed, "trace": traced, "load": load}


def plain_page(body):
    # Playwright passes (route, request) to handlers with two parameters: keep it at one.
    def handler(route):
        route.fulfill(content_type="text/html", body=body)
    return handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,20000,100000")
    ap.add_argument("--images", type=int, default=200)
    ap.add_argument("--no-plain", action="store_true", help="skip the plain DOM grid baseline")
    ap.add_argument("--plain-max", type=int, default=100000,
                    help="the plain DOM grid only up to this size (at 1M it does not finish loading)")
    ap.add_argument("--minimal", action="store_true", help="also the minimal virtualised grid (the physical-limit probe)")
    ap.add_argument("--seed-above", type=int, default=100000,
                    help="sizes above this are seeded straight into the data folder (gallery-bench seed), in size/10,000 sections")
    ap.add_argument("--web", default=str(ROOT / "Web"), help="the page's folder (e.g. an older commit's, for a before/after run)")
    ap.add_argument("--wasm", default=str(ROOT / ".build-wasm" / "engine.wasm"),
                    help="engine.wasm; the bundle the page loads (/js/page.js) is the page.js beside it (an older build's, with --web)")
    ap.add_argument("--windows", type=int, default=10,
                    help="at the largest size: the server's resident memory with this many windows open (columns + live stream), 0 to skip")
    ap.add_argument("--upload", type=int, default=0,
                    help="at the largest size, with --windows windows open: upload this many distinct photos (20 a request) "
                         "and time the next request meanwhile")
    ap.add_argument("--ingest-nice", type=int, default=10,
                    help="the server's --ingest-nice (0: thumbnails at the priority of requests, the baseline of --upload)")
    ap.add_argument("--no-page", action="store_true", help="skip the page measurements (only the server's figures)")
    ap.add_argument("--reconnect-after", type=int, default=0, metavar="N",
                    help="issue 15's limit at each size: a window that reconnects after N versions (N single moves by another "
                         "client). The server's catch-up (GET changes?since=, the live stream at ?since=, --windows streams at "
                         "once) timed with a probe making the next request meanwhile; then a page that goes offline, misses N "
                         "moves and comes back: its frames, memory and order. Runs after the page measurements (--no-page "
                         "skips those, not this)")
    ap.add_argument("--reconnect-before", metavar="PAGE_JS",
                    help="with --reconnect-after: also a page running this bundle (an older build's .build-wasm/page.js, served in "
                         "place of /js/page.js, with the engine.wasm beside it if there is one), before each run of this page, against the same server and gallery")
    ap.add_argument("--reconnect-no-page", action="store_true", help="with --reconnect-after: the server's side only")
    ap.add_argument("--probe-in-process", action="store_true",
                    help="with --reconnect-after or --upload: beside the probe (a process of its own), the same probe as a thread of "
                         "the bench's own process, as before session 17 (its requests wait for the bench's own work on the interpreter's "
                         "lock: parsing a catch-up answer, sending the uploads), its figures in [brackets]; with --reconnect-after, its slow "
                         "requests (> 50 ms) printed with the bench's parse")
    ap.add_argument("--reconnect-timeout", type=float, default=300,
                    help="with --reconnect-after: seconds the page may take to catch up before it is called stuck")
    ap.add_argument("--layout", default="waterfall",
                    help="the layout measured: waterfall, grid or justified, or several separated by commas, each measured "
                         "in turn at each size (the page opens in waterfall; another is chosen in the toolbar after ready)")
    ap.add_argument("--runs", type=int, default=1, help="measure the page this many times at each size (each layout in turn)")
    ap.add_argument("--open-in-layout", action="store_true",
                    help="with --layout: the page opens straight into that layout (the view it remembers for the gallery, "
                         "saved in local storage before the visit, as a user who chose it before), so ready is timed in it")
    ap.add_argument("--screenshot", help="save a screenshot of the page after the drop with its commit (PNG path)")
    ap.add_argument("--trace", action="store_true",
                    help="print long tasks and the page's slowest whole-gallery calls during the sweep and the scroll, and each request of the first visit (start, first byte, end)")
    ap.add_argument("--settle", action="store_true",
                    help="before the first visit, wait until the new browser window's own start-up work is done (Chromium "
                         "loads its omnibox popup, a WebUI of ~350 modules, in a renderer of its own for ~1 s of CPU "
                         "after a window opens): a first visit in a browser already running, instead of one just opened")
    ap.add_argument("--browser", choices=sorted(BROWSERS), default="shell",
                    help="shell: chromium-headless-shell (default), the headless Chromium Playwright launches for headless runs; "
                         "full: Debian's chromium, the whole browser, whose new window starts its omnibox WebUI beside the first "
                         "visit (add --settle for a first visit in a browser already running)")
    ap.add_argument("--chrome-trace", metavar="DIR",
                    help="write Chromium traces (every thread: main, compositor, raster, viz, GPU, network) of the first visit "
                         "(navigation → ready), of the reload and the fast scroll right after it, and of the later fast scroll "
                         "into DIR, for scripts/trace-frames.py")
    args = ap.parse_args()
    if args.chrome_trace:
        Path(args.chrome_trace).mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    layouts = args.layout.split(",")
    if any(k not in ("waterfall", "grid", "justified") for k in layouts):
        sys.exit(f"bench-page: --layout takes waterfall, grid or justified (or several, separated by commas), not {args.layout}")
    require("bench-page", browser=args.browser if not args.no_page or (args.reconnect_after > 0 and not args.reconnect_no_page) else None,
            gallery_bench=any(size > args.seed_above for size in sizes))
    data = Path(tempfile.mkdtemp(prefix="bench-page-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    subprocess.run([str(GALLERY), "user", "add", ADMIN[0], "--admin", "--password-stdin", "--data", str(data / "data")],
                   input=ADMIN[1].encode() + b"\n", check=True, capture_output=True, cwd=ROOT, timeout=60)

    def start_server():
        proc = subprocess.Popen([str(GALLERY), "serve", "--port", str(port), "--data", str(data / "data"), "--no-sample",
                                 "--ingest-nice", str(args.ingest_nice), "--web", args.web, "--wasm", args.wasm],
                                stdout=open(data / "server.log", "ab"), stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                call(base, "POST", "/api/login", {"name": ADMIN[0], "password": ADMIN[1]}); break
            except Exception:
                time.sleep(0.2)
        return proc
    server = start_server()
    try:
        imgdir = data / "img"; imgdir.mkdir()
        images = make_images(imgdir, args.images)
        galleries = {}
        built = [size for size in sizes if size <= args.seed_above] or [min(len(images), min(sizes))]
        for size in built:
            t0 = time.time()
            galleries[size] = build_gallery(base, size, images)
            print(f"built gallery of {size} in {time.time() - t0:.1f} s", file=sys.stderr)
        sample_thumb = call(base, "GET", f"/api/galleries/{galleries[built[0]]}")["sections"][0]["items"][0]["thumbnails"]["grid"]
        # A fresh server process: the first visit below is a first visit after a start. The
        # server builds its most active galleries' columns in the background at start (run 3
        # in BENCHMARKS.md predates that and read the gallery from SQLite on the first visit).
        server.terminate()
        server.wait(10)
        for size in sizes:
            if size in galleries:
                continue
            t0 = time.time()
            out = subprocess.run([str(GALLERY_BENCH), "seed", "--data", str(data / "data"), "--like", str(galleries[built[0]]),
                                  "--items", str(size), "--sections", str(max(1, size // 10000))],
                                 check=True, capture_output=True, cwd=ROOT, timeout=1800)
            galleries[size] = int(out.stdout.decode().split()[-1])
            print(f"seeded gallery of {size} in {time.time() - t0:.1f} s: {out.stderr.decode().strip()}", file=sys.stderr)
        server = start_server()
        for size in sizes:
            warm(base, galleries[size], args.web)
        rows = []
        def launch(p):
            return p.chromium.launch(executable_path=browser_path(args.browser), args=["--no-sandbox"])

        extra = []
        measured = []  # --chrome-trace: the measurements so far (their files' numbers)

        def measure(p, name, size, url, selector, scroller_js, route=None, gallery_id=None, layout="waterfall"):
            # A fresh browser per measurement: nothing left over from the previous drag.
            stolen0 = steal_ms()
            browser = launch(p)
            ctx = browser.new_context(viewport={"width": 1200, "height": 800})
            signed_in = ctx.request.post(base + "/api/login", data={"name": ADMIN[0], "password": ADMIN[1]}, headers={"Origin": base})
            assert signed_in.ok, f"sign-in failed: {signed_in.status}"
            page = ctx.new_page()
            page.set_default_timeout(300000)
            if route is None and args.open_in_layout and layout != "waterfall":
                # The view the page restores for this user and gallery (Web/js/settings.js, toolbar.restoreView).
                who = ctx.request.get(base + "/api/session").json()["user"]["id"]
                key = f"gallery.view.u{who}.{gallery_id}"
                page.add_init_script(f"localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps({'kind': layout}))});")
            if route:
                page.route(url, route)
            else:
                # Every frame from the start, to see the frames between ready and the first input.
                page.add_init_script("""window.__all = []; (() => { let last = 0; const f = (t) => {
                  if (last) window.__all.push([t, t - last]); last = t; requestAnimationFrame(f); };
                  requestAnimationFrame(f); })();""")
                if args.chrome_trace:
                    # Ready and the scroll's start as marks in the trace (blink.user_timing), for
                    # scripts/trace-frames.py --after ready: any page's ready (an older build's too).
                    page.add_init_script("""Object.defineProperty(window, 'readyAt', { configurable: true,
                      get() { return this.__readyAt; }, set(v) { this.__readyAt = v; performance.mark('ready'); } });""")
                if args.trace:
                    # Idle callbacks (titles, warm-up) and long tasks from the start, with their times.
                    page.add_init_script("""window.__slow = []; (() => { const ric = window.requestIdleCallback;
                      window.requestIdleCallback = (f, o) => ric((d) => { const t = performance.now(); try { f(d); } finally {
                        const ms = performance.now() - t; if (ms > 8) window.__slow.push(`idle ${f.toString().slice(0, 40).replace(/\\s+/g, ' ')} ${ms.toFixed(0)} ms at ${t.toFixed(0)}`); } }, o);
                      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__slow.push(`long task ${e.duration.toFixed(0)} ms at ${e.startTime.toFixed(0)}`); })
                        .observe({ type: 'longtask', buffered: true }); })();""")
                    # Every animation frame over 50 ms (Long Animation Frames): when, how long, its
                    # main-thread parts (scripts, style and layout) — a long frame with none of them
                    # was the compositor's, the raster's or the machine's, not the page's script.
                    page.add_init_script("""window.__loaf = []; try { new PerformanceObserver((l) => { for (const e of l.getEntries())
                      window.__loaf.push({ at: e.startTime, ms: e.duration, blocking: e.blockingDuration,
                        render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
                        layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
                        scripts: e.scripts.map((x) => `${x.invoker || x.name} ${x.duration.toFixed(0)} ms`) }); })
                      .observe({ type: 'long-animation-frame', buffered: true }); } catch {}""")
            tag = f"{'gallery' if route is None else name.split()[0]}-{size}"
            if args.chrome_trace and (args.runs > 1 or len(layouts) > 1):
                # One file per measurement: the layout and a running number in the name.
                measured.append(tag)
                tag += f"-{layout}-{len(measured)}"
            if args.settle:
                waited = wait_browser_quiet()
                print(f"{name} at {size}: the new window's own work done after {waited:.1f} s", file=sys.stderr)
            if args.chrome_trace:
                browser.start_tracing(categories=CHROME_TRACE_CATEGORIES)
            t0 = time.time()
            # Waited for inside the page from the commit on (READY_WAIT), as after the reload below:
            # goto's wait for the load event and then wait_for_selector compiled Playwright's injected
            # script into the page between the grid's render and its first frame (a 32 ms task there
            # in a trace at 100k, session 18).
            page.goto(url, wait_until="commit")
            page.evaluate(READY_WAIT)
            if args.chrome_trace:
                Path(args.chrome_trace, f"{tag}-visit.json").write_bytes(browser.stop_tracing())
            load = page.evaluate("window.readyAt")
            marks = page.evaluate("window.loadMarks ? JSON.stringify(Object.fromEntries(Object.entries(window.loadMarks).map(([k, v]) => [k, Math.round(v - window.loadMarks.start)]))) : ''")
            if marks:
                print(f"{name} at {size}: load phases (ms since open) {marks}", file=sys.stderr)
                boot = page.evaluate("JSON.stringify(Object.fromEntries(Object.entries({ html: performance.getEntriesByType('navigation')[0].responseEnd, "
                                     "dom: performance.getEntriesByType('navigation')[0].domInteractive, "
                                     "early: performance.getEntriesByName(location.origin + '/js/early.js')[0]?.responseEnd, "
                                     "lastModule: Math.max(...performance.getEntriesByType('resource').filter((e) => e.name.includes('/js/')).map((e) => e.responseEnd)), ...window.bootMarks, open: window.loadMarks.start, "
                                     "ready: window.readyAt }).map(([k, v]) => [k, Math.round(v)])))")
                print(f"{name} at {size}: boot (ms since navigation) {boot}", file=sys.stderr)
                if args.trace:
                    # Each request of the first visit: when it started, got its first byte, ended.
                    res = page.evaluate("performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), "
                                        "Math.round(e.startTime), Math.round(e.requestStart), Math.round(e.responseStart), Math.round(e.responseEnd), e.nextHopProtocol])")
                    for r in res:
                        print(f"{name} at {size}:   {r[0][:60]:60} start {r[1]:5} request {r[2]:5} first byte {r[3]:5} end {r[4]:5}", file=sys.stderr)
            wall = (time.time() - t0) * 1000
            # A second visit (reload): warm browser caches and, for the gallery, the server's
            # cached columnar snapshot of this version (an ETag revalidation).
            if args.chrome_trace and route is None:
                browser.start_tracing(page=page, categories=CHROME_TRACE_CATEGORIES)
            page.reload()
            # Waited for inside the page (READY_WAIT), not with wait_for_selector: Playwright's
            # selector wait compiled its 330 KB injected script into the page's main world right
            # after ready and ran its first poll there (8-16 ms of the page's main thread, in the
            # frames "from ready through a fast scroll at once" measures; BENCHMARKS.md, session 17).
            reload = page.evaluate(READY_WAIT)
            if route is None and args.open_in_layout:
                kind = page.evaluate("app.controller.kind")
                assert kind == layout, f"the page opened in {kind}, not {layout}"
            if route is None and layout != "waterfall" and not args.open_in_layout:
                # The layout menu sits in the view sheet (issue 13): opened, chosen, closed.
                if not page.locator("#view-open").is_visible():
                    page.click("#more-open")
                page.click("#view-open")
                page.select_option("#layout-kind", layout)
                page.click("#view-done")
                page.wait_for_timeout(500)
            if route is None:
                # Scrolling at once after ready: the idle-time work after loading falls here
                # (frames that began after ready, to the end of the scroll).
                fast_scroll(page, scroller_js)
                if args.chrome_trace:
                    Path(args.chrome_trace, f"{tag}-reload-scroll.json").write_bytes(browser.stop_tracing())
                early = stats(page.evaluate("() => window.__all.filter(([t, d]) => t - d >= window.readyAt).map(([, d]) => d)"))
                if args.trace:
                    slow = page.evaluate("window.__slow.join('; ')")
                    print(f"{name} at {size}: after ready (at {page.evaluate('window.readyAt'):.0f} ms): {slow}", file=sys.stderr)
                    # Over one vsync and a half: the missed frames (issue 15's 33 ms ones among them), each
                    # ending when (ms after ready, after the scroll's first step was asked for).
                    slow = page.evaluate("() => window.__all.filter(([t, d]) => t - d >= window.readyAt && d > 25).map(([t, d]) => "
                                         "`${d.toFixed(1)} ms ending at ready + ${(t - window.readyAt).toFixed(0)} (scroll + ${(t - window.__scrollAt).toFixed(0)})`).join(', ')")
                    print(f"{name} at {size}: frames over 25 ms after ready: {slow or 'none'}", file=sys.stderr)
                page.evaluate(f"() => {{ {scroller_js}.scrollTop = 0; }}")
            page.wait_for_timeout(500)
            nodes = page.evaluate("document.getElementsByTagName('*').length")
            if args.trace and route is None:
                page.evaluate(TRACER)
            sweep = drag_sweep(page, selector)
            if args.trace and route is None:
                print(f"{name} at {size}: sweep + drop {page.evaluate(TRACE_TAKE)}", file=sys.stderr)
            if args.chrome_trace:
                browser.start_tracing(page=page, categories=CHROME_TRACE_CATEGORIES)
            cpu0, t_scroll = browser_cpu_ms(), time.time()
            scroll = fast_scroll(page, scroller_js)
            cpu = cpu_since(cpu0)
            print(f"{name} at {size}: the fast scroll ({(time.time() - t_scroll) * 1000:.0f} ms) took {sum(cpu.values()):.0f} ms of the browser's CPU ("
                  + ", ".join(f"{k} {v:.0f}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1]) if v) + ")", file=sys.stderr)
            if args.chrome_trace:
                Path(args.chrome_trace, f"{tag}-scroll.json").write_bytes(browser.stop_tracing())
            if args.trace and route is None:
                print(f"{name} at {size}: scroll {page.evaluate(TRACE_TAKE)}", file=sys.stderr)
            if route is None:
                page.evaluate(f"() => {{ {scroller_js}.scrollTop = 0; }}")
                page.wait_for_timeout(300)
                drop = drop_commit(page, selector)
                if args.screenshot:
                    page.screenshot(path=args.screenshot)
                if args.trace:
                    print(f"{name} at {size}: drop commit {page.evaluate(TRACE_TAKE)}", file=sys.stderr)
                live = live_change(page, base, gallery_id)
                if args.trace:
                    print(f"{name} at {size}: live change {page.evaluate(TRACE_TAKE)}", file=sys.stderr)
                    loaf = page.evaluate("""() => (window.__loaf ?? []).filter((f) => f.at >= window.readyAt).map((f) =>
                      `${f.ms.toFixed(0)} ms at ready + ${(f.at - window.readyAt).toFixed(0)} (wall ${((performance.timeOrigin + f.at) / 1000).toFixed(2)} s; blocking ${f.blocking.toFixed(0)}, render ${f.render.toFixed(0)}, `
                      + `style and layout ${f.layout.toFixed(0)}; ${f.scripts.join(', ') || 'no script'})`).join('; ')""")
                    print(f"{name} at {size}: long animation frames after ready: {loaf or 'none'}", file=sys.stderr)
                # Memory after all of it (the idle-time work done), after a garbage collection:
                # the JS heap in use and the engine's wasm memory.
                cdp = ctx.new_cdp_session(page)
                cdp.send("HeapProfiler.collectGarbage")
                heap = cdp.send("Runtime.getHeapUsage")["usedSize"] / 1e6
                wasm = page.evaluate("app.engine.memory.buffer.byteLength") / 1e6
                print(f"{name} at {size}: JS heap {heap:.1f} MB, wasm memory {wasm:.1f} MB", file=sys.stderr)
                extra.append((f"engine.wasm{'' if layouts == ['waterfall'] else ', ' + layout}", size, early, drop, live, heap, wasm))
            browser.close()
            rows.append((name, size, load, wall, reload, sweep, scroll, nodes))
            print(f"measured {name} at {size} (load average {os.getloadavg()[0]:.2f}; CPU taken by the hypervisor meanwhile "
                  f"{steal_ms() - stolen0} ms)", file=sys.stderr)

        rows = []
        with sync_playwright() as p:
            for size in ([] if args.no_page else sizes * args.runs):
                for layout in layouts:
                    measure(p, "gallery (engine.wasm, virtualised)" + ("" if layouts == ["waterfall"] else f", {layout}"),
                            size, f"{base}/#/g/{galleries[size]}", ".cell:not([hidden])", "document.getElementById('scroller')",
                            gallery_id=galleries[size], layout=layout)
                if args.minimal:
                    measure(p, "minimal virtualised grid (physical limit)", size, f"{base}/minimal", ".t:not([hidden])",
                            "document.getElementById('s')", route=plain_page(MINIMAL % (size, json.dumps([base + sample_thumb]))))
                if args.no_plain or size > args.plain_max:
                    continue
                measure(p, "plain DOM grid (all tiles, node moves)", size, f"{base}/plain", ".t",
                        "document.getElementById('s')", route=plain_page(PLAIN % (size, base + sample_thumb)))
        reconnects = []
        if args.reconnect_after:
            with sync_playwright() as p:
                for size in sizes:
                    lines = reconnect_server(base, galleries[size], args.reconnect_after, max(1, args.windows), server.pid,
                                             probe_in_process=args.probe_in_process)
                    for line in lines:
                        print(f"reconnect at {size}: {line}", file=sys.stderr)
                    pages = []
                    for run in range(0 if args.reconnect_no_page else args.runs):
                        for label, bundle in ([("before", args.reconnect_before)] if args.reconnect_before else []) + [("this page", None)]:
                            r = reconnect_page(p, base, galleries[size], args.reconnect_after, launch, trace=args.trace,
                                               timeout_s=args.reconnect_timeout, bundle=bundle)
                            r["label"] = label if args.reconnect_before else ""
                            print(f"reconnect at {size}: {label} {r}", file=sys.stderr)
                            pages.append(r)
                    reconnects.append((size, lines, pages))
        if args.windows:
            top = max(sizes)
            idle, now, peak, events = server_windows(base, galleries[top], server.pid, args.windows)
            print(f"server at {top}: RSS {idle:.0f} MB after the page runs; with {args.windows} windows open (columns + live stream), "
                  f"after 20 moves reached each ({events} events per window): RSS {now:.0f} MB, peak while they opened and followed {peak:.0f} MB", file=sys.stderr)
            extra_server = (top, args.windows, idle, now, peak, events)
        if args.upload:
            top = max(sizes)
            up = upload_under_windows(base, galleries[top], server.pid, max(1, args.windows), args.upload,
                                      probe_in_process=args.probe_in_process)
            print(f"upload at {top}: {up}", file=sys.stderr)
        print("| page | items | ready (performance.now) | navigation → ready (wall) | ready after a reload | drag sweep p95 / max | fast scroll p95 / max | DOM nodes |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, size, load, wall, reload, sweep, scroll, nodes in rows:
            print(f"| {name} | {size} | {load:.0f} ms | {wall:.0f} ms | {reload:.0f} ms | {sweep['p95']} / {sweep['max']} ms ({sweep['n']} frames) | "
                  f"{scroll['p95']} / {scroll['max']} ms ({scroll['n']} frames) | {nodes} |")
        print()
        print("| gallery | items | from ready through a fast scroll at once p95 / max | drop with commit (drag, drop, answer, reconcile) p95 / max | another window's move (live stream) p95 / max | JS heap + wasm memory |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for label, size, early, drop, live, heap, wasm in extra:
            print(f"| {label} | {size} | {early['p95']} / {early['max']} ms ({early['n']} frames) | "
                  f"{drop['p95']} / {drop['max']} ms ({drop['n']} frames) | {live['p95']} / {live['max']} ms ({live['n']} frames) | "
                  f"{heap:.1f} + {wasm:.1f} MB |")
        if args.windows:
            top, windows, idle, now, peak, events = extra_server
            print()
            print(f"Server resident memory at {top} items: {idle:.0f} MB after the page runs; {now:.0f} MB with {windows} windows open "
                  f"(columns read, live streams following 20 moves: {events} events each); peak {peak:.0f} MB.")
        for size, lines, pages in reconnects:
            print()
            print(f"A window that reconnects after {args.reconnect_after:,} versions, {size:,} items (server):")
            for line in lines:
                print(f"- {line}")
            for r in pages:
                if "stuck_s" in r:
                    print(f"- the page{' (' + r['label'] + ')' if r['label'] else ''}: offline at version {r['v0']}, {args.reconnect_after:,} moves in {r['moves_s']:.1f} s, back online "
                          f"(load average {r['load']:.2f}): **had not caught up to version {r['target']} after {r['stuck_s']:.0f} s** ({r['error']})")
                else:
                    print(f"- the page{' (' + r['label'] + ')' if r['label'] else ''}: offline at version {r['v0']}, {args.reconnect_after:,} moves in {r['moves_s']:.1f} s, back online "
                          f"(load average {r['load']:.2f}): at version {r['target']} after {r['caught_s'] * 1000:.0f} ms; frames from back online "
                          f"to 1.5 s after p95 {r['frames']['p95']} / max {r['frames']['max']} ms ({r['frames']['n']} frames; over 33.4 ms: "
                          f"{r['long'] or 'none'}); JS heap + wasm {r['heap']:.1f} + {r['wasm']:.1f} MB; order and version equal "
                          f"to the server's columns: {'yes' if r['same'] else 'NO'}; followed {r['followed']}" + (f"; {r['trace']}" if r['trace'] else ""))
        if args.upload:
            print()
            print(f"{up['files']} distinct photos uploaded into the {top}-item gallery (20 a request, one after another) with "
                  f"{max(1, args.windows)} windows following it: uploaded in {up['uploaded_s']:.1f} s, all ingested after "
                  f"{up['ingested_s']:.1f} s; meanwhile, every 100 ms, the gallery list p50 / p99 / max {up['read_p50']:.1f} / "
                  f"{up['read_p99']:.1f} / {up['read_max']:.1f} ms and a single move {up['move_p50']:.1f} / {up['move_p99']:.1f} / "
                  f"{up['move_max']:.1f} ms ({up['reads']} / {up['moves']} probes{'; not 200: ' + str(up['not_200'][:3]) if up['not_200'] else ''})"
                  + (f" [the probe in the bench's own process, as before session 17: list {up['old_read_p50']:.1f} / {up['old_read_p99']:.1f} / "
                     f"{up['old_read_max']:.1f} ms, move {up['old_move_p50']:.1f} / {up['old_move_p99']:.1f} / {up['old_move_max']:.1f} ms "
                     f"({up['old_reads']} / {up['old_moves']})]" if 'old_reads' in up else "")
                  + f"; every window received {up['events_min']} versions; server RSS "
                  f"{up['rss']:.0f} MB after, {up['rss_peak_sampled']:.0f} MB at most while uploading (sampled), high-water mark {up['rss_hwm']:.0f} MB.")
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
