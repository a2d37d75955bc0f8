"""F26, F27: during a drag every section shows a "drop at end" gap cell; dropping there puts
the item last in that section."""
from conftest import wait_server, center, open_page, server_titles, shot, titles, wait_changed, wait_idle


def test_dropping_apple_on_the_gap_cell_of_more_pictures_puts_it_last_there(browser, server):
    page = open_page(browser, server, viewport={"width": 1200, "height": 2000})
    try:
        before = titles(page)
        assert page.locator(".gap:not([hidden])").count() == 0  # only during a drag
        x0, y0 = center(page, "Apple")
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x0 + 8, y0 + 8, steps=3)
        page.wait_for_function("app.view.last.phase === 'dragging'")
        page.wait_for_function("app.view.last.cells.filter(c => c.kind === 'gap').length === 2")
        where = """() => { const g = app.view.last.cells.find(c => c.kind === 'gap' && c.section === 1);
            const r = document.getElementById('scroller').getBoundingClientRect();
            return [r.left + g.x + g.w / 2, r.top + g.y - document.getElementById('scroller').scrollTop + g.h / 2]; }"""
        x, y = x0 + 8, y0 + 8
        for i in range(1, 13):
            # The gap cell moves as the preview reflows: aim at where it is now.
            gap = page.evaluate(where)
            x, y = x + (gap[0] - x) / (13 - i), y + (gap[1] - y) / (13 - i)
            page.mouse.move(x, y)
            page.wait_for_timeout(20)
        for _ in range(3):
            gap = page.evaluate(where)
            page.mouse.move(gap[0] + 1, gap[1] + 1)
            page.wait_for_timeout(60)
        hovered = page.evaluate("app.view.last.cells.some(c => c.kind === 'gap' && c.section === 1 && (c.flags & 12))")
        page.mouse.up()
        wait_idle(page)
        after = wait_changed(page, before)
        assert hovered, "the gap cell under the pointer was not shown as the target"
        assert after[1] == before[1] + ["Apple"], after
        assert after[0] == before[0][1:]
        assert page.locator(".gap:visible").count() == 0  # the gap cells vanish after the drag
        wait_server(server, after)
        page.wait_for_timeout(300)
        shot(page, "gap-drop-after")
        # Not only hidden in the DOM: not on screen either.
        assert page.locator(".gap:visible").count() == 0, "the gap cells stay on screen after the drop"
    finally:
        page.context.close()
