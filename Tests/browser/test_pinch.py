"""F22: Ctrl+wheel (a trackpad pinch in Chromium) changes how many tiles fit in a row, keeping
the tile under the pointer roughly in place (its row stays under the pointer)."""
from conftest import cell, open_page, shot


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
