"""Issue 15.1: a big gallery's first visit opens its grid once every column but the titles is in
(early.js hands the body over before its titles, which are ~40 % of it) — and then every tile on
screen takes its photo's title as its name, as a screen reader reads it, with no error shown.
The gallery is 100,000 items seeded beside the sample (`gallery-bench seed`, the debug build
beside `gallery`), its download throttled so that the body arrives in many pieces."""
import subprocess

from conftest import GALLERY, ROOT, Server, close_page, new_page


def test_a_big_first_visit_opens_before_its_titles_then_names_every_tile(browser):
    server = Server()
    try:
        sample = 1
        out = subprocess.run([str(GALLERY.parent / "gallery-bench"), "seed", "--data", server.data, "--like", str(sample),
                              "--items", "100000", "--sections", "4"], check=True, capture_output=True, cwd=ROOT, timeout=300)
        gallery = int(out.stdout.decode().split()[-1])
        server.start()
        columns = server.api("GET", f"/api/galleries/{gallery}/columns")
        title = dict(zip(columns["id"], columns["title"]))
        assert len(title) == 100000
        page = new_page(browser, server)
        try:
            # The body downloads at ~2 MB/s on the wire (zstd: a few hundred kilobytes a second of
            # pieces), so that it comes in pieces whatever the machine's load: unthrottled, on a
            # busy machine the whole body could be in before the page first read it, and then it is
            # handed over whole (no titles to wait for).
            cdp = page.context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": 2_000_000,
                                                          "uploadThroughput": -1})
            page.goto(f"{server.url}/#/g/{gallery}")
            page.wait_for_selector("body[data-ready='1']", timeout=60000)
            # The titles came after the grid had its columns (the early hand-over was taken)...
            page.wait_for_function("window.loadMarks.titles !== undefined", timeout=20000)
            marks = page.evaluate("window.loadMarks")
            assert marks["titles"] > marks["fetched"], marks
            # ...and every tile on screen is named by its own photo's title.
            page.wait_for_function("""[...document.querySelectorAll('#content .cell:not([hidden])')]
              .every((c) => c.getAttribute('aria-label') && c.querySelector('.title').textContent === c.getAttribute('aria-label'))""",
                                   timeout=20000)
            shown = page.evaluate("""[...document.querySelectorAll('#content .cell:not([hidden])')].map((c) => {
              const r = c.getBoundingClientRect();
              return { id: Number(c.dataset.id), label: c.getAttribute('aria-label'), onScreen: r.bottom > 0 && r.top < innerHeight };
            })""")
            assert sum(1 for c in shown if c["onScreen"]) >= 8, shown
            wrong = [c for c in shown if c["label"] != title.get(c["id"])]
            assert not wrong, f"tiles named otherwise than their photos: {wrong[:5]}"
            # Scrolled far on, the tiles made there are named at once.
            page.evaluate("document.getElementById('scroller').scrollTop = 400000")
            page.wait_for_function("""[...document.querySelectorAll('#content .cell:not([hidden])')].some((c) => {
              const r = c.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })""")
            far = page.evaluate("""[...document.querySelectorAll('#content .cell:not([hidden])')].filter((c) => {
              const r = c.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight;
            }).map((c) => [Number(c.dataset.id), c.getAttribute('aria-label')])""")
            assert far and all(label == title[i] for i, label in far), far[:5]
            assert page.evaluate("document.getElementById('toast').hidden"), "a message was shown: " + page.evaluate("document.getElementById('toast').textContent")
            assert not page.errors
        finally:
            close_page(page)
    finally:
        server.stop()
