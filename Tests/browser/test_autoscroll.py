"""F11: dragging past the bottom edge scrolls the grid, and the drop lands below where the view began."""
from conftest import wait_server, center, open_page, screen, server_titles, shot, titles, wait_changed, wait_idle


def test_holding_a_dragged_tile_at_the_bottom_edge_scrolls_and_the_drop_lands_further_down(browser, server):
    page = open_page(browser, server, viewport={"width": 1000, "height": 460})
    try:
        scroller = page.locator("#scroller").bounding_box()
        bottom = scroller["y"] + scroller["height"]
        assert page.evaluate("document.getElementById('scroller').scrollHeight") > scroller["height"] * 1.8
        before = titles(page)
        x0, y0 = center(page, "Apple")
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x0 + 8, y0 + 8, steps=2)
        for i in range(1, 11):
            page.mouse.move(x0 + 8, y0 + (bottom - 4 - y0) * i / 10)
            page.wait_for_timeout(16)
        start = page.evaluate("document.getElementById('scroller').scrollTop")
        samples = []
        # Hold near (just inside) the bottom edge; small wiggles keep the browser's drag events coming.
        for k in range(40):
            page.mouse.move(x0 + 8 + (k % 2), bottom - 3)
            page.wait_for_timeout(40)
            samples.append(page.evaluate("document.getElementById('scroller').scrollTop"))
        assert samples[-1] > start + 100, f"no auto-scroll: {start} → {samples}"
        assert page.evaluate("app.view.last.phase") == "dragging"
        # Back into the grid (above the edge zone) and drop.
        page.mouse.move(x0 + 8, bottom - 120, steps=4)
        page.wait_for_timeout(150)
        page.mouse.up()
        wait_idle(page)
        after = wait_changed(page, before)
        flat = [t for s in after for t in s]
        assert flat.index("Apple") > 4, after
        # Where Apple is drawn now is below the viewport the drag started in.
        y = page.evaluate("app.view.last.cells.find(c => c.kind === 'item' && c.id === app.sections({confirmed: true}).flatMap(s => s.items).find(i => i.title === 'Apple').id).y")
        assert y > scroller["height"], y
        # On screen: the settled grid draws Apple below the first view's bottom edge.
        top = page.evaluate("document.getElementById('scroller').getBoundingClientRect().top")
        apple = next(c for c in screen(page)["cells"] if c["title"] == "Apple")
        scrolled = page.evaluate("document.getElementById('scroller').scrollTop")
        assert apple["y"] - top + scrolled > scroller["height"], (apple, scrolled)
        wait_server(server, after)
        shot(page, "autoscroll-after")
    finally:
        page.context.close()
