#!/usr/bin/env python3
"""Whole-gallery writes against a live server while another gallery's writes are probed.

    scripts/import-probe.py ITEMS GALLERY_BIN [GALLERY_BIN…]

For each `gallery` binary (release builds; a build of an older commit as the baseline, run in
the same session): a fresh data folder and an admin, a small "probe" gallery renamed every
20 ms by one client, then, each with the probe running: an archive import of ITEMS items
(manifest only, every item `failed`, no images: the rows are what is measured; stored, not
deflated, so the zip-bomb check passes), a duplicate of that gallery, and its deletion. Prints
each one's time and the longest a probe write waited meanwhile (the writer held for others). A
delete answers once the gallery is hidden; its rows may go afterwards (session 29): the probe
runs on until the SQLite file holds no row of it, and that time is printed too."""
import http.cookiejar, io, json, os, shutil, sqlite3, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request, zipfile

PASSWORD = "correct horse battery"


def measure(binary, n):
    port = 23000 + (os.getpid() + n) % 1000
    data = tempfile.mkdtemp(prefix="import-probe-")
    subprocess.run([binary, "user", "add", "--data", data, "admin", "--admin", "--password-stdin"], input=(PASSWORD + "\n").encode(),
                   check=True, stdout=subprocess.DEVNULL)
    server = subprocess.Popen([binary, "serve", "--data", data, "--port", str(port), "--host", "127.0.0.1", "--no-sample"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(method, path, body=None, ctype="application/json"):
        payload = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=payload, method=method, headers={"Origin": base, "Content-Type": ctype})
        try:
            with opener.open(request, timeout=900) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    try:
        for _ in range(300):
            try:
                call("GET", "/healthz"); break
            except OSError:
                time.sleep(0.1)
        call("POST", "/api/login", {"name": "admin", "password": PASSWORD})
        probe_gallery = json.loads(call("POST", "/api/galleries", {"name": "probe"})[1])["id"]

        def rows_gone(gallery):
            """Waits until the database holds no item or gallery row of `gallery`; the seconds it took."""
            t = time.perf_counter()
            db = sqlite3.connect(f"file:{data}/gallery.sqlite?mode=ro", uri=True, timeout=30)
            try:
                while db.execute("SELECT (SELECT COUNT(*) FROM gallery WHERE id = ?) + (SELECT COUNT(*) FROM item WHERE galleryId = ?)",
                                 (gallery, gallery)).fetchone()[0]:
                    time.sleep(0.05)
            finally:
                db.close()
            return time.perf_counter() - t

        def timed(label, method, path, body=None, ctype="application/json", until=None):
            waits, stop = [], threading.Event()

            def probe():
                k = 0
                while not stop.is_set():
                    t = time.perf_counter()
                    call("PATCH", f"/api/galleries/{probe_gallery}", {"name": f"probe {k}"})
                    waits.append(time.perf_counter() - t); k += 1
                    time.sleep(0.02)
            thread = threading.Thread(target=probe, daemon=True); thread.start()
            time.sleep(0.3)
            first = len(waits); t0 = time.perf_counter()
            status, answer = call(method, path, body, ctype)
            took = time.perf_counter() - t0
            after = until() if until and status < 300 else None
            stop.set(); thread.join()
            during = waits[first:] or [0.0]
            rows = f", its rows gone {after:.2f} s after the answer" if after is not None else ""
            print(f"  {label}: {status} in {took:.2f} s{rows}; probe writes meanwhile {len(during)}, longest {max(during) * 1000:.0f} ms, "
                  f"median {sorted(during)[len(during) // 2] * 1000:.1f} ms", flush=True)
            if status >= 300:
                raise SystemExit(f"{label}: {answer[:300]!r}")
            return answer

        items = [{"title": "p", "state": "failed"} for _ in range(n)]
        manifest = {"format": "gallery-archive/1", "name": "big",
                    "sections": [{"title": f"S{s}", "items": items[s * n // 10:(s + 1) * n // 10]} for s in range(10)]}
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
            z.writestr("manifest.json", json.dumps(manifest))
        print(f"{binary}: {n} items", flush=True)
        big = json.loads(timed("import", "POST", "/api/galleries/import", buffer.getvalue(), "application/zip"))["id"]
        copy = json.loads(timed("duplicate", "POST", f"/api/galleries/{big}/duplicate", {}))["id"]
        timed("delete", "DELETE", f"/api/galleries/{copy}", until=lambda: rows_gone(copy))
    finally:
        server.terminate(); server.wait()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    for b in sys.argv[2:]:
        measure(b, int(sys.argv[1]))
