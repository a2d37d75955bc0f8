"""Issue 13, "Tests and look": the seeds' details driven from the page — F15 (a slow image
never paints a reused cell), F23 (scrolling back requests nothing), F21 (the shrink into the
can), F28 (a drop with no destination goes to the end of the last section), F29 (forbidden,
cancel), Add URL and Empty trash through their controls."""
import json
import time

from conftest import (answer, center, close_page, menu_click, mouse_drag, open_page, server_titles, shot, titles, wait_changed,
                      wait_idle, wait_images, wait_server, wait_titles)
from test_external_drops import image_host  # noqa: F401 (a fixture)


def grow(server, copies=4):
    """The sample gallery with its first section copied `copies` times (more than a screen)."""
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    snap = server.api("GET", f"/api/galleries/{gallery}")
    first = snap["sections"][0]
    ids = [i["id"] for i in first["items"]]
    for _ in range(copies):
        server.api("POST", f"/api/galleries/{gallery}/batch",
                   {"operations": [{"op": "copy", "items": ids, "to": {"section": first["id"]}}]})


def test_a_slow_image_never_paints_a_cell_that_was_reused_meanwhile(browser, server):
    """F15: grid images held back while their cells scroll away and are reused for other items;
    when they finally arrive, every cell shows its own item's image."""
    grow(server, copies=14)
    page = open_page(browser, server, viewport={"width": 390, "height": 700})
    assert page.evaluate("app.view.last.height") > 4 * 700 + 1200, "more than the rendered margin"
    held = []
    try:
        # From now on grid images wait until the test lets them go.
        page.route("**/api/items/*/image/grid.jpg*", lambda route: held.append(route))
        page.locator("#scroller").evaluate("s => s.scrollTo(0, s.scrollHeight / 2)")
        page.wait_for_function("document.querySelectorAll('.cell:not([hidden]) .spinner').length > 0")
        page.wait_for_timeout(200)
        page.locator("#scroller").evaluate("s => s.scrollTo(0, s.scrollHeight)")
        page.wait_for_timeout(300)
        assert held, "no image was requested"
        for route in held:
            route.continue_()
        page.unroute("**/api/items/*/image/grid.jpg*")
        wait_images(page)
        wrong = page.evaluate("""() => [...document.querySelectorAll('.cell:not([hidden])')].filter((el) => {
            const img = el.querySelector('img');
            return img.classList.contains('loaded') && !img.src.includes(`/api/items/${el.dataset.id}/image/`);
          }).map((el) => [el.dataset.id, el.querySelector('img').src])""")
        assert wrong == [], f"cells painted with another item's image: {wrong}"
        assert page.evaluate("document.querySelectorAll('.cell:not([hidden]) img.loaded').length") > 4
    finally:
        page.context.close()


def test_scrolling_back_requests_no_image_again(browser, server):
    """F23: what was seen comes from the cache when the grid scrolls back."""
    grow(server, copies=2)
    page = open_page(browser, server, viewport={"width": 1280, "height": 800})
    try:
        scroller = page.locator("#scroller")
        for y in (0.25, 0.5, 0.75, 1.0):
            scroller.evaluate(f"s => s.scrollTo(0, s.scrollHeight * {y})")
            page.wait_for_timeout(150)
            wait_images(page)
        requested = []
        page.on("request", lambda r: requested.append(r.url) if "/image/" in r.url else None)
        for y in (0.75, 0.5, 0.25, 0.0):
            scroller.evaluate(f"s => s.scrollTo(0, s.scrollHeight * {y})")
            page.wait_for_timeout(150)
            wait_images(page)
        assert requested == [], f"scrolling back requested {requested}"
        assert page.evaluate("document.querySelectorAll('.cell:not([hidden]) img.loaded').length") > 8
    finally:
        page.context.close()


def touch(cdp, kind, x=None, y=None):
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4, "force": 1}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def test_a_tile_dropped_on_the_trash_shrinks_into_the_can(browser, server):
    """F21: the preview flies to the can's centre getting smaller until it vanishes."""
    page = open_page(browser, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        cdp = page.context.new_cdp_session(page)
        can = page.locator("#trash").bounding_box()
        tx, ty = can["x"] + can["width"] / 2, can["y"] + can["height"] / 2
        x0, y0 = center(page, "Banana")
        touch(cdp, "touchStart", x0, y0)
        page.wait_for_function("['lifted', 'dragging'].includes(app.view.last.phase)", timeout=3000)
        for i in range(1, 13):
            touch(cdp, "touchMove", x0 + (tx - x0) * i / 12, y0 + (ty - y0) * i / 12)
            page.wait_for_timeout(20)
        page.wait_for_function("document.getElementById('trash').classList.contains('hovered')")
        page.evaluate("""() => { window.__flight = []; const t0 = performance.now();
            const look = () => { const el = document.querySelector('.floating .cell:not([hidden])');
              if (el) { const r = el.getBoundingClientRect(); window.__flight.push([r.left + r.width / 2, r.top + r.height / 2, r.width, Number(getComputedStyle(el).opacity)]); }
              if (performance.now() - t0 < 800) requestAnimationFrame(look); };
            requestAnimationFrame(look); }""")
        touch(cdp, "touchEnd")
        wait_idle(page)
        page.wait_for_timeout(300)
        flight = page.evaluate("window.__flight")
        assert len(flight) >= 4, flight
        widths = [f[2] for f in flight]
        assert widths[-1] < widths[0] * 0.5, f"no shrink: {widths}"
        assert all(b <= a + 0.5 for a, b in zip(widths, widths[1:])), f"it grew: {widths}"
        end = flight[-1]
        assert abs(end[0] - tx) < 20 and abs(end[1] - ty) < 20, (end, tx, ty)   # into the can
        page.wait_for_function("document.getElementById('trash-count').textContent === '1'")
    finally:
        page.context.close()


FORBIDDEN_JS = """async ([x, y]) => {
  const dt = new DataTransfer(); dt.setData('text/uri-list', location.origin + '/nothing.jpg');
  const target = document.elementFromPoint(x, y);
  const fire = (type) => target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: dt }));
  fire('dragenter');
  for (let i = 0; i < 4; i++) { fire('dragover'); await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20))); }
  const can = document.getElementById('trash');
  const seen = { forbidden: can.classList.contains('forbidden'), cursor: getComputedStyle(can).cursor, operation: app.drag.state.proposal?.operation };
  fire('dragleave');
  document.dispatchEvent(new DragEvent('dragleave', { bubbles: true, clientX: 0, clientY: 0, dataTransfer: dt }));
  return seen;
}"""


def test_outside_data_over_the_trash_is_forbidden_and_the_can_says_so(page, server):
    """F29 forbidden / F21: a link from another app held over the can: the proposal is forbidden,
    the can shows it (not-allowed), nothing is added."""
    before = titles(page)
    can = page.locator("#trash").bounding_box()
    seen = page.evaluate(FORBIDDEN_JS, [can["x"] + can["width"] / 2, can["y"] + can["height"] / 2])
    assert seen == {"forbidden": True, "cursor": "not-allowed", "operation": "forbidden"}, seen
    wait_idle(page)
    assert titles(page) == before


def test_a_tile_released_where_nothing_takes_it_flies_home_and_nothing_changes(page, server):
    """F29 cancel: released over the toolbar, Apple goes back to its place; no batch is sent."""
    before = titles(page)
    home = page.locator(".cell:not(.preview):not([hidden])[aria-label='Apple']").bounding_box()
    batches = []
    page.on("request", lambda r: batches.append(r.url) if r.url.endswith("/batch") else None)
    bar = page.locator("#bar").bounding_box()
    x0, y0 = center(page, "Apple")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + 8, y0 + 8, steps=2)
    for i in range(1, 10):
        page.mouse.move(x0 + 40, y0 + (bar["y"] + bar["height"] / 2 - y0) * i / 9)
        page.wait_for_timeout(20)
    page.mouse.up()
    wait_idle(page)
    page.wait_for_timeout(300)
    assert titles(page) == before and server_titles(server) == before
    assert batches == []
    now = page.locator(".cell:not(.preview):not([hidden])[aria-label='Apple']").bounding_box()
    assert abs(now["x"] - home["x"]) < 1 and abs(now["y"] - home["y"]) < 1, (home, now)


def test_a_drop_below_every_section_goes_to_the_end_of_the_last_section(browser, server):
    """F28: no destination index path under the pointer: the end of the last section."""
    page = open_page(browser, server, viewport={"width": 1280, "height": 2600})
    try:
        before = titles(page)
        content = page.evaluate("app.view.last.height")
        top = page.locator("#scroller").bounding_box()["y"]
        assert content + top < 2500, "room below the last section"
        mouse_drag(page, center(page, "Apple"), (300, top + content + 150))
        wait_idle(page)
        after = wait_changed(page, before)
        assert after[-1] == before[-1] + ["Apple"], after
        wait_server(server, after)
    finally:
        page.context.close()


def test_empty_trash_through_its_button_purges_what_is_in_it(page, server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    snap = server.api("GET", f"/api/galleries/{gallery}")
    doomed = [i["id"] for i in snap["sections"][0]["items"][:2]]
    page.click("#select-toggle")
    for t in titles(page, 0)[:2]:
        page.locator(f".cell:not(.preview):not([hidden])[aria-label='{t}']").click()
    page.click("#select-trash")
    page.wait_for_function("document.getElementById('trash-count').textContent === '2'")
    page.click("#trash")
    page.locator("#trash-list li").nth(1).wait_for()
    page.click("#trash-empty")
    page.wait_for_function("document.getElementById('trash-count').textContent === '0'")
    page.locator("#trash-list li", has_text="The trash is empty.").wait_for()
    assert not page.locator("#trash-count").is_visible()
    assert server.api("GET", f"/api/galleries/{gallery}/trash") == []
    assert all(i not in doomed for s in server.api("GET", f"/api/galleries/{gallery}")["sections"] for i in [x["id"] for x in s["items"]])


def test_add_url_through_its_button_adds_the_image_after_the_focused_tile(page, server, image_host):  # noqa: F811
    before = titles(page, 0)
    page.locator(".cell:not(.preview):not([hidden])[aria-label='Banana']").click(modifiers=["Control"])  # focus, no detail
    page.keyboard.press("Escape")
    menu_click(page, "#add-url")
    answer(page, f"{image_host}/good.jpg").wait_for(state="detached", timeout=15000)
    page.wait_for_function("n => app.sections({confirmed: true})[0].items.length === n + 1", arg=len(before), timeout=15000)
    after = titles(page, 0)
    k = after.index("Banana")
    assert after[:k + 1] == before[:k + 1] and after[k + 2:] == before[k + 1:], after
    page.wait_for_function("() => !app.view.last.cells.some((c) => c.kind === 'placeholder')", timeout=15000)
    wait_images(page)
    assert server_titles(server)[0] == after
