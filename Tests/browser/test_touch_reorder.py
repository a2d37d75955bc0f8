"""F9: a long press lifts a tile under a finger; dragging reorders live, the others shift aside."""
import json

from conftest import wait_server, center, open_page, server_titles, shot, titles, view_setting, wait_idle, wait_screen


def touch(cdp, kind, x=None, y=None):
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4, "force": 1}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def test_long_press_on_apple_then_moving_reorders_it_and_the_others_shift(browser, server):
    page = open_page(browser, server, has_touch=True, is_mobile=False)
    try:
        cdp = page.context.new_cdp_session(page)
        # The square grid: its reading order on screen is the live order. (A waterfall keeps the
        # others in their columns while a drag passes — issue 13 — so its rows do not read in
        # order mid-drag; test_drag_details.py covers that.)
        view_setting(page, "#layout-kind", "grid")
        page.wait_for_function("app.controller.kind === 'grid'")
        wait_screen(page, titles(page, 0), 0)
        before = titles(page, 0)
        assert before[0] == "Apple"
        x0, y0 = center(page, "Apple")
        x1, y1 = center(page, "Date")
        touch(cdp, "touchStart", x0, y0)
        page.wait_for_timeout(700)  # the long press (≥ 0.5 s)
        page.wait_for_function("['lifted', 'dragging'].includes(app.view.last.phase)", timeout=2000)
        shot(page, "touch-lifted")
        steps = 15
        for i in range(1, steps + 1):
            touch(cdp, "touchMove", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
            page.wait_for_timeout(20)
        assert page.evaluate("app.view.last.phase") == "dragging"
        # Live reorder: while the finger is over Date, the others have already shifted aside —
        # on screen, Apple's place (its faded source) is where Date was, the others in order.
        others = [t for t in before if t != "Apple"]
        live = others[:before.index("Date")] + ["Apple"] + others[before.index("Date"):]
        drawn = wait_screen(page, live, 0)
        source = next(c for c in drawn["cells"] if c["title"] == "Apple")
        assert source["ghost"] and source["opacity"] < 1, source
        shot(page, "touch-dragging")
        touch(cdp, "touchEnd")
        wait_idle(page)
        page.wait_for_function("t => app.sections({confirmed: true})[0].items[0].title !== t", arg="Apple")
        after = titles(page, 0)
        assert after.index("Apple") == before.index("Date")
        others = [t for t in before if t != "Apple"]
        assert [t for t in after if t != "Apple"] == others  # the others keep their order, shifted
        wait_screen(page, after, 0)
        wait_server(server, after, 0)
        shot(page, "touch-after")
    finally:
        page.context.close()


def test_a_short_touch_does_not_lift_and_a_quick_swipe_scrolls_instead(browser, server):
    page = open_page(browser, server, has_touch=True, viewport={"width": 1000, "height": 460})
    try:
        cdp = page.context.new_cdp_session(page)
        before = titles(page)
        x0, y0 = center(page, "Apple")
        x1, y1 = center(page, "Date")
        # A short touch over Apple and a quick move to Date: nothing lifts, nothing moves.
        touch(cdp, "touchStart", x0, y0)
        page.wait_for_timeout(100)
        for i in range(1, 8):
            touch(cdp, "touchMove", x0 + (x1 - x0) * i / 7, y0 + (y1 - y0) * i / 7)
            page.wait_for_timeout(16)
        touch(cdp, "touchEnd")
        wait_idle(page)
        assert titles(page) == before
        wait_screen(page, before[0], 0)
        # A quick upward swipe from Apple scrolls the grid, and still moves nothing.
        scroller = page.locator("#scroller").bounding_box()
        assert page.evaluate("document.getElementById('scroller').scrollHeight") > scroller["height"] + 150
        top = page.evaluate("document.getElementById('scroller').scrollTop")
        x0, y0 = center(page, "Apple")
        touch(cdp, "touchStart", x0, y0 + 150)
        for i in range(1, 8):
            touch(cdp, "touchMove", x0, y0 + 150 - 150 * i / 7)
            page.wait_for_timeout(16)
        touch(cdp, "touchEnd")
        page.wait_for_function("t => document.getElementById('scroller').scrollTop > t + 50", arg=top)
        wait_idle(page)
        assert titles(page) == before
    finally:
        page.context.close()
