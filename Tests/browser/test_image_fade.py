"""Issue 15.1, the frames right after a gallery opens: a thumbnail that comes promptly appears at
once; only one slow enough that its cell showed a spinner fades in (pool.js). The select mode's
rule `.cell img { transition: opacity … }` gave every image the fade, so each of the first
screen's thumbnails ran an opacity transition and was a compositor layer of its own for 0.2 s
right after ready (BENCHMARKS.md, session 17: a missed frame there at every gallery size)."""
from conftest import close_page, new_page, wait_images
from test_seed_details import grow

# Every transition that starts on a grid image, from the page's first script on: the property and
# whether the image was marked slow (`fade`) when it started.
RECORD_TRANSITIONS = """window.__imageTransitions = [];
document.addEventListener('transitionrun', (e) => {
  if (e.target.matches?.('.cell img')) window.__imageTransitions.push({ property: e.propertyName, fade: e.target.classList.contains('fade') });
}, true);"""


def test_a_prompt_thumbnail_appears_without_a_fade_and_a_slow_one_fades_in(browser, server):
    grow(server, copies=2)
    page = new_page(browser, server)
    held, released = [], []
    try:
        # One thumbnail is held back until its cell shows the spinner: the slow image of the check
        # (the page's later requests for it pass).
        slow = server.api("GET", "/api/galleries/%d" % server.api("GET", "/api/galleries")[0]["id"])["sections"][0]["items"][0]
        page.route(f"**/api/items/{slow['id']}/image/grid.jpg*", lambda route: route.continue_() if released else held.append(route))
        page.add_init_script(RECORD_TRANSITIONS)
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        page.wait_for_function(f"document.querySelector('.cell[data-id=\"{slow['id']}\"] .spinner') != null", timeout=20000)
        assert len(held) == 1
        released.append(True)
        held.pop().continue_()
        wait_images(page, timeout=20000)
        # The slow one fades in (the check sees transitions where there are some); its transition's
        # event comes after the prompt images' ones, which came as they appeared, before it.
        page.wait_for_function("window.__imageTransitions.some((r) => r.property === 'opacity' && r.fade)", timeout=20000)
        shown = page.evaluate("document.querySelectorAll('.cell:not([hidden]) img.loaded').length")
        assert shown > 8, f"only {shown} thumbnails shown"
        runs = page.evaluate("window.__imageTransitions")
        prompt = [r for r in runs if r["property"] == "opacity" and not r["fade"]]
        assert prompt == [], f"{len(prompt)} prompt thumbnails ran an opacity transition (of {shown} shown)"
    finally:
        for route in held:
            route.continue_()
        close_page(page)
