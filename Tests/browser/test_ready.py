"""Issue 15.1: the page says it is ready (body[data-ready], window.readyAt) once the browser has made
the grid's first frame, not in the task that built the grid's elements: stamped there, that frame's
style, layout, paint and commit fell in the first frame after ready — the missed frame right after
ready at every gallery size (BENCHMARKS.md, session 17). Checked by order of events, not by time."""
from conftest import close_page, new_page, server_ids, server_titles, wait_images, wait_titles

# When the first grid cell entered the document, and when the first animation frame after that
# began (its callbacks run before the browser renders that frame).
FIRST_FRAME = """window.__firstFrame = { cells: null, frame: null };
new MutationObserver((_, observer) => {
  if (!document.querySelector('#content .cell')) return;
  observer.disconnect();
  window.__firstFrame.cells = performance.now();
  requestAnimationFrame(() => { window.__firstFrame.frame = performance.now(); });
}).observe(document, { childList: true, subtree: true });"""


def test_ready_comes_after_the_grids_first_frame(browser, server):
    page = new_page(browser, server)
    try:
        page.add_init_script(FIRST_FRAME)
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        seen = page.evaluate("({ ...window.__firstFrame, ready: window.readyAt })")
        assert seen["cells"] is not None, "no grid cell before ready"
        assert seen["frame"] is not None and seen["frame"] <= seen["ready"], \
            f"ready at {seen['ready']:.1f} ms before the grid's first frame began ({seen['frame']}; cells in at {seen['cells']:.1f})"
    finally:
        close_page(page)


# Each thumbnail request of the page, with when it started (resource timing, from the first script on).
RECORD_THUMBNAIL_REQUESTS = """window.__thumbnailRequests = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name.includes('/image/grid.jpg')) window.__thumbnailRequests.push(e.startTime);
}).observe({ type: 'resource', buffered: true });"""


def test_the_first_screens_thumbnails_load_from_the_grids_first_frame_on(browser, server):
    """The grid of a gallery just opened comes on screen before its thumbnails are asked for (their
    requests, answers and decode were work of the first frame: BENCHMARKS.md, session 18), and then
    every thumbnail on the first screen appears."""
    page = new_page(browser, server)
    try:
        page.add_init_script(FIRST_FRAME)
        page.add_init_script(RECORD_THUMBNAIL_REQUESTS)
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        wait_images(page, timeout=20000)
        seen = page.evaluate("({ ...window.__firstFrame, requests: window.__thumbnailRequests })")
        shown = page.evaluate("""[...document.querySelectorAll('#content .cell:not([hidden])')].filter((c) => {
          const r = c.getBoundingClientRect(), img = c.querySelector('img');
          return r.bottom > 0 && r.top < innerHeight && img.classList.contains('loaded') && img.naturalWidth > 0;
        }).length""")
        assert shown >= 4, f"only {shown} thumbnails on the first screen"
        assert seen["requests"], "no thumbnail was requested"
        assert seen["frame"] is not None and min(seen["requests"]) >= seen["frame"], \
            f"a thumbnail asked for at {min(seen['requests']):.1f} ms, before the grid's first frame ({seen['frame']})"
    finally:
        close_page(page)


# When the page opened its live streams (EventSource: a stream's resource timing entry comes only
# when it ends) and asked for the trash (resource timing).
RECORD_STREAM_REQUESTS = """window.__streams = [];
window.EventSource = class extends EventSource {
  constructor(url, options) { window.__streams.push([new URL(url, location.href).pathname, performance.now()]); super(url, options); }
};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (new URL(e.name).pathname.endsWith('/trash')) window.__streams.push(['trash', e.startTime]);
}).observe({ type: 'resource', buffered: true });"""


def test_the_first_gallerys_streams_start_after_ready_and_follow_changes(browser, server):
    """On the page's first load the gallery's live stream, its trash count and the gallery list's
    stream are started once the grid is on screen (their requests were main-thread work before
    its first frame: BENCHMARKS.md, session 19), and the gallery still follows another client's
    change."""
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    ids = server_ids(server, gallery)[0]
    page = new_page(browser, server)
    try:
        page.add_init_script(RECORD_STREAM_REQUESTS)
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        page.wait_for_function("window.__streams.length >= 3 && app.live.source?.readyState === EventSource.OPEN", timeout=10000)
        seen = page.evaluate("({ streams: window.__streams, ready: window.readyAt })")
        paths = [p for p, _ in seen["streams"]]
        assert f"/api/galleries/{gallery}/events" in paths and "/api/galleries/events" in paths and "trash" in paths, paths
        for path, start in seen["streams"]:
            assert start >= seen["ready"], f"{path} started at {start:.1f} ms, before ready ({seen['ready']:.1f})"
        # Another client's move reaches the page.
        server.api("POST", f"/api/galleries/{gallery}/batch", {"operations": [{"op": "move", "items": [ids[0]], "to": {"after": ids[-1]}}]})
        wait_titles(page, server_titles(server, gallery)[0], 0, timeout=10000)
    finally:
        close_page(page)
