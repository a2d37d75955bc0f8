#!/usr/bin/env python3
"""Reads a Chromium trace written by `scripts/bench-page.py --chrome-trace DIR` and says what
Chromium's threads did.

    scripts/trace-frames.py DIR/gallery-100000-scroll.json [--over 40]
        the long frames of a scroll: each gap over --over ms between the page's animation
        frames, and per thread (renderer main, compositor, raster workers, viz, GPU, browser)
        the time busy in it and the events that took it (self time), beside a typical frame
    scripts/trace-frames.py DIR/gallery-100000-visit.json --visit
        a first visit: from navigation start, each thread's events over 2 ms in order (the
        HTML, scripts, style sheets, the wasm compile and its tiers, requests), and the wasm
        events summed
    scripts/trace-frames.py DIR/gallery-1000-waterfall-1-reload-scroll.json --after ready [--span 300] [--over 25]
        the frames from a mark the page made (bench-page.py marks `ready` and `scroll`): each
        animation frame, every thread's tasks in the long ones (what they did, the URL), and the
        frames the renderer's compositor reported dropped or partly presented
"""
import argparse
import json
import sys
from pathlib import Path
from collections import defaultdict


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        events = data["traceEvents"] if isinstance(data, dict) else data
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"trace-frames: {path} is not a Chromium trace ({type(e).__name__}: {e})")
    names, procs = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
    # Complete events per thread (B/E pairs joined), with their depth and self time.
    threads = defaultdict(list)
    open_ = defaultdict(list)
    for e in sorted((e for e in events if e.get("ph") in ("X", "B", "E")), key=lambda e: (e["ts"], e.get("ph") != "E")):
        key = (e["pid"], e["tid"])
        if e["ph"] == "X":
            threads[key].append({"name": e["name"], "ts": e["ts"], "dur": e.get("dur", 0), "args": e.get("args", {}), "cat": e.get("cat", "")})
        elif e["ph"] == "B":
            open_[key].append(e)
        elif open_[key]:
            b = open_[key].pop()
            threads[key].append({"name": b["name"], "ts": b["ts"], "dur": e["ts"] - b["ts"], "args": {**b.get("args", {}), **e.get("args", {})}, "cat": b.get("cat", "")})
    for key, evs in threads.items():
        evs.sort(key=lambda x: (x["ts"], -x["dur"]))
        stack = []
        for x in evs:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= x["ts"]:
                stack.pop()
            x["depth"] = len(stack)
            x["parent"] = stack[-1] if stack else None
            x["children"] = 0
            x["kids"] = []
            if stack:
                stack[-1]["kids"].append(x)
            if stack and x["ts"] + x["dur"] <= stack[-1]["ts"] + stack[-1]["dur"]:
                stack[-1]["children"] += x["dur"]
            stack.append(x)
    label = lambda key: f"{procs.get(key[0], key[0])}/{names.get(key, key[1])}"
    return events, threads, label


def clip(x, a, b):
    return max(0, min(x["ts"] + x["dur"], b) - max(x["ts"], a))


def window_summary(threads, label, a, b, top=6):
    """Per thread: busy time (top-level events) in [a, b] and the names with the most self time."""
    rows = []
    for key, evs in threads.items():
        busy = sum(clip(x, a, b) for x in evs if x["depth"] == 0)
        if busy < 1000:
            continue
        self_ = defaultdict(float)
        for x in evs:
            c = clip(x, a, b)
            if c:
                self_[x["name"]] += max(0, c - x["children"] * c / max(1, x["dur"]))
        names = sorted(self_.items(), key=lambda kv: -kv[1])[:top]
        rows.append((busy, label(key), names))
    rows.sort(key=lambda r: -r[0])
    return rows


def scroll(path, over):
    events, threads, label = load(path)
    # The page's main thread: the one with the most animation frames.
    main = max(threads, key=lambda k: sum(1 for x in threads[k] if x["name"] == "FireAnimationFrame"))
    frames = sorted({x["ts"] for x in threads[main] if x["name"] == "ProxyMain::BeginMainFrame"})
    gaps = [(frames[i - 1], frames[i]) for i in range(1, len(frames))]
    print(f"{path}: {len(frames)} main frames (ProxyMain::BeginMainFrame) on {label(main)}; gaps over {over} ms: "
          f"{sum(1 for a, b in gaps if b - a > over * 1000)}")
    normal = [g for g in gaps if g[1] - g[0] < 20000]
    if normal:
        a, b = normal[len(normal) // 2]
        print(f"\n  a typical frame ({(b - a) / 1000:.1f} ms):")
        for busy, name, names in window_summary(threads, label, a, b):
            print(f"    {name:45} busy {busy / 1000:6.1f} ms: " + ", ".join(f"{n} {t / 1000:.1f}" for n, t in names))
    for a, b in gaps:
        if b - a <= over * 1000:
            continue
        print(f"\n  frame of {(b - a) / 1000:.1f} ms at +{(a - frames[0]) / 1000:.0f} ms:")
        for busy, name, names in window_summary(threads, label, a, b):
            print(f"    {name:45} busy {busy / 1000:6.1f} ms: " + ", ".join(f"{n} {t / 1000:.1f}" for n, t in names))
    # The whole scroll, per thread.
    a, b = frames[0], frames[-1]
    print(f"\n  the whole scroll ({(b - a) / 1000:.0f} ms, {len(frames)} frames):")
    for busy, name, names in window_summary(threads, label, a, b, top=10):
        print(f"    {name:45} busy {busy / 1000:7.1f} ms: " + ", ".join(f"{n} {t / 1000:.1f}" for n, t in names))


def described(x):
    """What a task did: its descendants with the most self time, and the first URL or script name."""
    self_ = defaultdict(float)
    url = ""
    todo = [x]
    while todo:
        y = todo.pop()
        self_[y["name"]] += y["dur"] - y["children"]
        data = y["args"].get("data") or {}
        if not url and isinstance(data, dict):
            url = data.get("url") or data.get("name") or data.get("functionName") or ""
        if not url:
            url = y["args"].get("url") or y["args"].get("fileName") or ""
        todo.extend(y["kids"])
    for wrapper in ("RunTask", "ThreadControllerImpl::RunTask", "ThreadPool_RunTask"):
        self_.pop(wrapper, None)
    top = sorted(self_.items(), key=lambda kv: -kv[1])[:4]
    return ", ".join(f"{n} {t / 1000:.1f}" for n, t in top if t >= 200), str(url)[-70:]


def visit(path, min_ms):
    events, threads, label = load(path)
    # The page's navigation (about:blank's has no URL).
    starts = [e["ts"] for e in events if e.get("name") == "navigationStart"
              and ((e.get("args") or {}).get("data") or {}).get("documentLoaderURL", "").startswith("http")]
    t0 = min(starts) if starts else min(e["ts"] for e in events if e.get("ts"))
    print(f"{path}: times in ms from the page's navigationStart")
    # Each process's CPU (its threads' top-level events) in 100 ms steps from navigation start.
    steps = 7
    per = defaultdict(lambda: [0.0] * steps)
    for key, evs in threads.items():
        proc = label(key).split("/")[0]
        for x in evs:
            if x["depth"]:
                continue
            for k in range(steps):
                per[proc][k] += clip(x, t0 + k * 100000, t0 + (k + 1) * 100000) / 1000
    print("\n  busy ms per process (all its threads) in each 100 ms from navigation start:")
    for proc, row in sorted(per.items(), key=lambda kv: -sum(kv[1])):
        if sum(row) >= 5:
            print(f"    {proc:45} " + " ".join(f"{v:6.0f}" for v in row))
    requests = defaultdict(dict)
    for e in events:
        name = e.get("name")
        if name in ("ResourceSendRequest", "ResourceReceiveResponse", "ResourceFinish"):
            data = (e.get("args") or {}).get("data") or {}
            r = requests[(e["pid"], data.get("requestId"))]
            r[name] = (e["ts"] - t0) / 1000
            if data.get("url"):
                r["url"] = data["url"]
    print("\n  the page's requests (ms from navigation start: sent, response, finished):")
    for r in sorted(requests.values(), key=lambda r: r.get("ResourceSendRequest", 1e9)):
        url = r.get("url", "")
        if url.startswith("http") and "/image/" not in url:
            print(f"    {url.split('/', 3)[-1][:50]:50} {r.get('ResourceSendRequest', float('nan')):7.1f} "
                  f"{r.get('ResourceReceiveResponse', float('nan')):7.1f} {r.get('ResourceFinish', float('nan')):7.1f}")
    others = [r for r in requests.values() if not r.get("url", "").startswith("http")]
    if others:
        print(f"    and {len(others)} requests of Chromium's own (chrome://…) in the same trace")
    for key in sorted(threads, key=lambda k: label(k)):
        evs = [x for x in threads[key] if x["depth"] == 0 and x["dur"] >= min_ms * 1000 and x["ts"] >= t0 - 50000]
        if not evs:
            continue
        busy = sum(x["dur"] for x in threads[key] if x["depth"] == 0 and x["ts"] >= t0) / 1000
        print(f"\n  {label(key)} (busy {busy:.0f} ms from navigation start)")
        for x in evs:
            what, url = described(x)
            print(f"    {(x['ts'] - t0) / 1000:7.1f} +{x['dur'] / 1000:6.1f} {what}  {url}")
    wasm = defaultdict(lambda: [0, 0.0, None, set()])
    for key, evs in threads.items():
        for x in evs:
            if "wasm" in x["cat"] or "wasm" in x["name"].lower() or "Wasm" in x["name"]:
                w = wasm[x["name"]]
                w[0] += 1
                w[1] += x["dur"]
                w[2] = x["ts"] if w[2] is None else min(w[2], x["ts"])
                w[3].add(label(key))
    if wasm:
        print("\n  wasm events (count, total ms, first start, threads):")
        for n, (k, total, first, ths) in sorted(wasm.items(), key=lambda kv: kv[1][2]):
            print(f"    {n:50} ×{k:5} {total / 1000:7.1f} ms from {(first - t0) / 1000:7.1f}  {', '.join(sorted(ths))[:90]}")


def after(path, mark, span, over, min_ms):
    """Frames from a mark the page made (bench-page.py --chrome-trace marks `ready` and `scroll`):
    each animation frame (the page's requestAnimationFrame callbacks fired) for `span` ms, and for
    each gap over `over` ms between two, every thread's tasks of at least `min_ms` in it and what
    they did; Chromium's own verdicts on the frames (PipelineReporter: presented or dropped)."""
    events, threads, label = load(path)
    marks = [e for e in events if e.get("name") == mark and "user_timing" in e.get("cat", "")]
    if not marks:
        sys.exit(f"trace-frames: no mark `{mark}` in {path}")
    m = marks[0]
    t0, main = m["ts"], (m["pid"], m["tid"])
    t1 = t0 + span * 1000
    print(f"{path}: from the mark `{mark}` ({label(main)}), {span:.0f} ms; times in ms from the mark")
    def top(x):
        while x["parent"] is not None:
            x = x["parent"]
        return x
    # One frame's callbacks (the page's and the bench's recorder) run in one task: a frame is the
    # start of a task that fired animation frames.
    fired = sorted({top(x)["ts"] for x in threads[main] if x["name"] == "FireAnimationFrame" and t0 - 100000 <= x["ts"] <= t1})
    for a, b in zip(fired, fired[1:]):
        if b < t0:
            continue
        flag = "  <-- long" if b - a > over * 1000 else ""
        print(f"  animation frame at {(b - t0) / 1000:7.1f} (+{(b - a) / 1000:5.1f}){flag}")
        if not flag:
            continue
        for key in sorted(threads, key=lambda k: label(k)):
            evs = [x for x in threads[key] if x["depth"] == 0 and clip(x, a, b) >= min_ms * 1000]
            for x in evs:
                what, url = described(x)
                print(f"      {label(key)[:40]:40} {(x['ts'] - t0) / 1000:7.1f} +{x['dur'] / 1000:6.1f} {what}  {url}")
    # The benchmark's own work in the page (Playwright's DevTools messages: its evaluations, and its
    # injected scripts, ~330 KB, compiled on the page's main thread).
    devtools = [x for x in threads[main] if t0 <= x["ts"] <= t1 and ((x["args"].get("chrome_mojo_event_info") or {})
                .get("mojo_interface_tag") == "blink.mojom.DevToolsSession")]
    print("  the bench's DevTools messages run in the page: " + (", ".join(
        f"{(x['ts'] - t0) / 1000:.1f} ({x['args']['chrome_mojo_event_info'].get('payload_size', 0):,} bytes, {x['dur'] / 1000:.1f} ms)"
        for x in devtools) or "none"))
    # The compositor's verdict on each frame (async events: begin carries the report).
    reports = sorted((e for e in events if e.get("name") == "PipelineReporter" and e.get("ph") == "b"
                      and t0 <= e["ts"] <= t1 and e["pid"] == main[0]), key=lambda e: e["ts"])
    states = defaultdict(int)
    for e in reports:
        r = (e.get("args") or {}).get("frame_reporter") or {}
        state = r.get("state", "?")
        states[state] += 1
        if state not in ("STATE_PRESENTED_ALL", "STATE_NO_UPDATE_DESIRED"):
            extra = {k: v for k, v in r.items() if v and k not in ("frame_source", "layer_tree_host_id", "surface_frame_trace_id", "display_trace_id")}
            print(f"  frame reported at {(e['ts'] - t0) / 1000:7.1f}: {extra}")
    print("  frames the renderer's compositor reported: " + ", ".join(f"{k} {v}" for k, v in states.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--over", type=float, default=40, help="a long frame: animation frames further apart than this (ms)")
    ap.add_argument("--visit", action="store_true", help="a first visit, from navigation start")
    ap.add_argument("--min", type=float, default=2, help="--visit, --after: events of at least this many ms")
    ap.add_argument("--after", metavar="MARK",
                    help="the frames from a mark of the page's (bench-page.py --chrome-trace marks `ready` and `scroll`): "
                         "each animation frame, and every thread's tasks in the long ones (--over)")
    ap.add_argument("--span", type=float, default=300, help="--after: this many ms from the mark")
    args = ap.parse_args()
    if not Path(args.trace).is_file():
        sys.exit(f"trace-frames: {args.trace} is missing: bench-page.py --chrome-trace DIR writes the traces")
    if args.after:
        after(args.trace, args.after, args.span, args.over, args.min)
    elif args.visit:
        visit(args.trace, args.min)
    else:
        scroll(args.trace, args.over)


if __name__ == "__main__":
    sys.exit(main())
