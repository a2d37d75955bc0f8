"""F22: Ctrl+wheel (a trackpad pinch in Chromium) changes how many tiles fit in a row, keeping
the tile under the pointer roughly in place (its row stays under the pointer)."""
from conftest import cell, center, open_page, shot


def test_ctrl_wheel_changes_the_column_count_and_the_tile_under_the_pointer_stays_under_it(browser, server):
    page = open_page(browser, server, viewport={"width": 1200, "height": 520})
    try:
        assert page.input_value("#columns") == "4"
        page.evaluate("document.getElementById('scroller').scrollTop = 260")
        page.wait_for_timeout(200)
        box = page.locator("#scroller").bounding_box()
        x, y = box["x"] + 450, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        for columns, delta in (("3", -100), ("2", -100), ("3", 100)):
            title = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('.cell').getAttribute('aria-label')", [x, y])
            page.keyboard.down("Control")
            page.mouse.wheel(0, delta)
            page.keyboard.up("Control")
            page.wait_for_function(f"document.getElementById('columns').value === '{columns}'")
            page.wait_for_timeout(400)  # the cells' move animation
            b = cell(page, title).bounding_box()
            # In a waterfall the tile may change column; its row stays under the pointer.
            assert b["y"] - 10 <= y <= b["y"] + b["height"] + 10, (columns, title, y, b)
            assert page.evaluate("app.controller.columns") == int(columns)
        shot(page, "pinch-3-columns")
    finally:
        page.context.close()


def fingers(cdp, kind, points):
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
        {"x": x, "y": y, "id": i + 1, "radiusX": 4, "radiusY": 4, "force": 1} for i, (x, y) in enumerate(points)]})


def pinch(page, cdp, cx, cy, d0, d1, steps=8):
    """One two-finger gesture around (cx, cy): the fingers go from 2·d0 to 2·d1 apart."""
    fingers(cdp, "touchStart", [(cx - d0, cy), (cx + d0, cy)])
    for step in range(1, steps + 1):
        d = d0 + (d1 - d0) * step / steps
        fingers(cdp, "touchMove", [(cx - d, cy), (cx + d, cy)])
        page.wait_for_timeout(20)
    fingers(cdp, "touchEnd", [])


def test_a_two_finger_pinch_on_a_touch_screen_changes_the_column_count(browser, server):
    page = open_page(browser, server, has_touch=True, is_mobile=False, viewport={"width": 1000, "height": 700})
    try:
        cdp = page.context.new_cdp_session(page)
        assert page.evaluate("app.controller.columns") == 4
        cx, cy = center(page, "Date")
        # Spreading the fingers by a third zooms in one step (fewer columns); pinching them
        # together zooms out. The tile under the fingers keeps its row under them.
        for expected, (d0, d1) in ((3, (40, 56)), (2, (40, 56)), (3, (60, 42))):
            title = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('.cell')?.getAttribute('aria-label')", [cx, cy])
            assert title, "no tile under the fingers"
            pinch(page, cdp, cx, cy, d0, d1)
            page.wait_for_function(f"app.controller.columns === {expected}")
            assert page.input_value("#columns") == str(expected)
            page.wait_for_timeout(400)  # the cells' move animation
            b = cell(page, title).bounding_box()
            assert b["y"] - 10 <= cy <= b["y"] + b["height"] + 10, (expected, title, cy, b)
        # A pinch is not a drag: nothing was lifted or moved.
        assert page.evaluate("app.view.last.phase") == "idle"
        shot(page, "pinch-touch")
    finally:
        page.context.close()
