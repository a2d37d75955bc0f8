"""Issue 12: "Sort this section by name / by capture date" is one arrangement change: one
version on the server, seen live in another window, put back by one Undo."""
import time

from conftest import close_page, open_page, server_titles, shot, titles, wait_idle, wait_titles, view_setting


def wait_server(server, expected, timeout=10):
    deadline = time.monotonic() + timeout
    while server_titles(server)[0] != expected:
        assert time.monotonic() < deadline, f"server still has {server_titles(server)[0]}, not {expected}"
        time.sleep(0.05)


def shown_order(page, names):
    """Titles among `names` of the visible cells in reading order (the grid layout: rows, then columns)."""
    boxes = page.evaluate("""() => [...document.querySelectorAll('.cell:not(.preview):not([hidden])')]
        .map(e => ({t: e.getAttribute('aria-label'), r: e.getBoundingClientRect()}))
        .filter(c => c.t && c.r.bottom > 0 && c.r.top < innerHeight)
        .map(c => [c.t, Math.round(c.r.top), Math.round(c.r.left)])""")
    return [t for t, _, _ in sorted(boxes, key=lambda b: (b[1], b[2])) if t in names]


def test_sorting_a_section_by_name_is_one_version_seen_live_and_undone_at_once(browser, server):
    page = open_page(browser, server)
    other = open_page(browser, server)
    try:
        view_setting(page, "#layout-kind", "grid")
        before = titles(page, 0)
        expected = sorted(before, key=str.casefold)
        assert before != expected                       # the sample is not in name order
        gallery = page.evaluate("app.model.id")
        version = server.api("GET", f"/api/galleries/{gallery}")["version"]

        page.select_option("#sort-section", "name")     # no photo focused: the first section on screen
        wait_titles(page, expected)
        wait_idle(page)
        wait_server(server, expected)
        assert server.api("GET", f"/api/galleries/{gallery}")["version"] == version + 1   # one batch
        wait_titles(other, expected)                    # streamed to the other window
        # On screen, once the cells have glided to their places (F3), in reading order.
        deadline = time.monotonic() + 5
        while (shown := shown_order(page, expected)) != expected[:len(shown)] or len(shown) < 4:
            assert time.monotonic() < deadline, f"the screen shows {shown}"
            time.sleep(0.05)
        assert page.locator("#sort-section").input_value() == ""   # the menu is ready for the next sort
        assert titles(page, 1) == titles(other, 1)      # the other section is untouched
        shot(page, "sort-by-name")

        page.click("#undo")                             # one step puts the whole section back
        wait_titles(page, before)
        wait_server(server, before)
        wait_titles(other, before)
        assert server.api("GET", f"/api/galleries/{gallery}")["version"] == version + 2
    finally:
        close_page(other)
        close_page(page)
