"""Issue 15.1: a flung grid asks for no image it would drop (each cell that passed through the
rendered range used to request its thumbnail, get a spinning layer and a fade, and be recycled
before the image came: the fast scroll's 50 ms frames), and shows every image where it stops."""
from conftest import close_page, open_page, wait_images
from test_seed_details import grow

# A fling: the scroller moves STEP px every animation frame (what bench-page.py's fast scroll does).
# Answers when it began and ended, and each frame's time.
FLING_JS = """([step, frames]) => new Promise((done) => {
  const s = document.getElementById('scroller');
  const t0 = performance.now(); let n = 0; const times = [t0];
  const next = (t) => { times.push(t); s.scrollTop += step; if (++n < frames) requestAnimationFrame(next); else done([t0, performance.now(), times]); };
  requestAnimationFrame(next);
})"""
# view.js/pool.js: a pause of SETTLE ms is a stop (the cells shown then get their images), as a
# hand that holds still mid-scroll expects.
SETTLE_MS = 100

# Image loads begun between t0 and t1 (resource timing: the entry appears once the load ends).
STARTED_JS = """([t0, t1]) => performance.getEntriesByType('resource')
  .filter((e) => e.name.includes('/image/') && e.startTime >= t0 && e.startTime <= t1).map((e) => e.name)"""


def test_a_flung_grid_asks_for_no_images_until_it_stops_then_shows_them_all(browser, server):
    grow(server, copies=30)
    page = open_page(browser, server, viewport={"width": 390, "height": 700})
    try:
        height, client = page.evaluate("[app.view.last.height, document.getElementById('scroller').clientHeight]")
        step = 200
        frames = int((height - client) // step) - 1
        assert frames >= 30, f"the gallery is {height} px tall: too short for a fling"
        frames = min(frames, 60)
        t0, t1, times = page.evaluate(FLING_JS, [step, frames])
        # Frames a stalled main thread held back long enough to be a stop (none on an idle machine).
        stops = sum(1 for a, b in zip(times, times[1:]) if b - a >= SETTLE_MS)
        passed = page.evaluate("document.querySelectorAll('.cell').length")  # the pool grew to the rendered range
        # Once it stops, the cells where it stopped get their images (and no spinner stays).
        wait_images(page, timeout=20000)
        started = page.evaluate(STARTED_JS, [t0, t1])
        # The first frame of a fling is not yet known as one (a render compares its scroll with the
        # last render's); a main thread stalled for hundreds of ms on a loaded machine may make a
        # few more frames look slow, and one held back SETTLE_MS or more is a stop, where the cells
        # shown (some 6-10 here) load. Before, every frame asked for the cells entering the range:
        # some 3-5 images a frame here, 100+ in this fling.
        allowed = 12 + 10 * stops
        assert len(started) <= allowed, f"{len(started)} images requested during a fling of {frames} frames ({passed} cells, {stops} stalls): {started[:5]}…"
        wrong = page.evaluate("""() => [...document.querySelectorAll('.cell:not([hidden])')].filter((el) => {
            const img = el.querySelector('img');
            return !img.classList.contains('loaded') || !img.src.includes(`/api/items/${el.dataset.id}/image/`);
          }).map((el) => [el.dataset.id, el.querySelector('img').src])""")
        assert wrong == [], f"cells without their own image after the fling stopped: {wrong}"
        assert page.evaluate("document.querySelectorAll('.cell:not([hidden]) img.loaded').length") > 4
    finally:
        close_page(page)
