"""F6: snapping chosen at run time: paging rests on a page boundary, view-aligned on an item's edge.
The window is 420 px high: with the one-row header (issue 13) the grid is as tall as it was
beside the old five-row toolbar, so the sample gallery scrolls past the distances used."""
from conftest import menu_click, open_page, shot, wait_images, view_setting


def settle(page):
    """Waits until scrollTop has not changed for three polls in a row (300 ms); answers it."""
    last, still = None, 0
    for _ in range(60):
        page.wait_for_timeout(100)
        now = page.evaluate("document.getElementById('scroller').scrollTop")
        still = still + 1 if last is not None and abs(now - last) < 0.5 else 0
        if still >= 3:
            return now
        last = now
    return last


def scroll_by(page, dy):
    box = page.locator("#scroller").bounding_box()
    page.mouse.move(box["x"] + 100, box["y"] + 200)
    page.mouse.wheel(0, dy)


def test_paging_rests_on_a_page_boundary(browser, server):
    page = open_page(browser, server, viewport={"width": 900, "height": 420})
    try:
        view_setting(page, "#snapping", "paging")
        settle(page)
        scroll_by(page, 170)
        top = settle(page)
        height = page.evaluate("document.getElementById('scroller').clientHeight")
        maximum = page.evaluate("(s => s.scrollHeight - s.clientHeight)(document.getElementById('scroller'))")
        assert top != 170 or height == 170
        assert min(top % height, height - top % height) < 2 or abs(top - maximum) < 2, (top, height, maximum)
        assert top > 0  # 170 px down is past the middle of nothing: one page forward
        shot(page, "snap-paging")
    finally:
        page.context.close()


def test_view_aligned_rests_on_an_item_edge(browser, server):
    page = open_page(browser, server, viewport={"width": 900, "height": 420})
    try:
        view_setting(page, "#snapping", "viewAligned")
        wait_images(page)   # the layout is final (thumbnails in, aspects known) before the snap is judged
        settle(page)        # the choice itself aligns the view first (a smooth scroll)
        scroll_by(page, 237)
        top = settle(page)
        edges = page.evaluate("app.view.last.cells.filter(c => c.kind === 'item').flatMap(c => [c.y, c.y + c.h])")
        distance = min(abs(top - e) for e in edges)
        assert distance < 10, (top, sorted(edges))
        assert abs(top - 237) > 0.5 or distance < 1  # it moved to an edge (or was on one)
        shot(page, "snap-view-aligned")
    finally:
        page.context.close()


def test_paging_turns_exactly_one_page_per_wheel_gesture_or_page_key(browser, server):
    """Issue 13: wheel turns of 100–200 px never advanced; one of 500 px or PageDown skipped two pages.
    (360 px high: with the one-row header the grid is about as tall as it was here before, so
    two pages stay short of the content's end.)"""
    page = open_page(browser, server, viewport={"width": 560, "height": 360})
    try:
        view_setting(page, "#snapping", "paging")
        settle(page)
        height = page.evaluate("document.getElementById('scroller').clientHeight")
        maximum = page.evaluate("(s => s.scrollHeight - s.clientHeight)(document.getElementById('scroller'))")
        assert maximum > 1.5 * height, "the sample gallery spans more than two and a half pages here"
        second = min(2 * height, maximum)  # the last page ends at the content's end
        pages = []
        for delta in (120, 500):
            scroll_by(page, delta)
            pages.append(settle(page))
        assert abs(pages[0] - height) < 1.5 and abs(pages[1] - second) < 1.5, (pages, height, maximum)
        shot(page, "snap-paging-two-turns")
        scroll_by(page, -180)
        assert abs(settle(page) - height) < 1.5
        page.locator("#scroller").focus()
        page.keyboard.press("PageDown")
        assert abs(settle(page) - second) < 1.5
        page.keyboard.press("PageUp")
        assert abs(settle(page) - height) < 1.5
        # A trackpad swipe is many small wheel events in a row: still one page.
        box = page.locator("#scroller").bounding_box()
        page.mouse.move(box["x"] + 100, box["y"] + 200)
        for _ in range(12):
            page.mouse.wheel(0, 40)
            page.wait_for_timeout(16)
        assert abs(settle(page) - second) < 1.5
    finally:
        page.context.close()


def test_view_aligned_offers_its_limit_always_never_automatic(browser, server):
    """F8 (issue 13): view-aligned's limit is chosen in the view sheet; the engine takes it,
    and a scroll still rests on an item's edge with each."""
    page = open_page(browser, server, viewport={"width": 900, "height": 420})
    try:
        menu_click(page, "#view-open")
        assert not page.locator("#snap-limit").is_visible()     # only with view-aligned
        page.select_option("#snapping", "viewAligned")
        assert page.locator("#snap-limit").is_visible()
        assert page.locator("#snap-limit option").all_inner_texts() == ["Automatic (on narrow screens)", "Always", "Never"]
        page.click("#view-done")
        wait_images(page)
        codes = page.evaluate("({always: 2, never: 3, automatic: 4})")
        for limit, distance in (("viewAlignedAlways", 237), ("viewAlignedNever", 300), ("viewAlignedAutomatic", 180)):
            page.evaluate("document.getElementById('scroller').scrollTop = 0")
            settle(page)
            view_setting(page, "#snap-limit", limit)
            settle(page)
            assert page.evaluate("app.controller.snapping") == codes[limit.removeprefix("viewAligned").lower()]
            scroll_by(page, distance)
            top = settle(page)
            edges = page.evaluate("app.view.last.cells.filter(c => c.kind === 'item').flatMap(c => [c.y, c.y + c.h])")
            assert min(abs(top - e) for e in edges) < 10, (limit, top)
        shot(page, "snap-view-aligned-limit")
    finally:
        page.context.close()


def test_edges_snapping_rests_on_the_bottom_edge_going_down_and_the_top_edge_going_up(browser, server):
    """F8, the seed's custom behaviour (issue 13): moving down, the scroll rests on the max
    (bottom) edge of the item at the top of the view; moving up, on its min (top) edge."""
    page = open_page(browser, server, viewport={"width": 900, "height": 420})
    try:
        view_setting(page, "#snapping", "edges")
        assert page.evaluate("app.controller.snapping") == 5
        wait_images(page)
        settle(page)
        item_frames = "app.view.last.cells.filter(c => c.kind === 'item').map(c => [c.x, c.y, c.w, c.h])"
        scroll_by(page, 237)
        down = settle(page)
        frames = page.evaluate(item_frames)
        bottoms = [y + h for _, y, _, h in frames]
        assert min(abs(down - b) for b in bottoms) < 2, (down, sorted(bottoms))
        assert down >= 237 - 1                                  # down: forward to a bottom edge
        shot(page, "snap-edges-down")
        scroll_by(page, -120)
        up = settle(page)
        tops = [y for _, y, _, _ in page.evaluate(item_frames)]
        assert min(abs(up - t) for t in tops) < 2, (up, sorted(tops))
        assert up <= down - 120 + 1                             # up: back to a top edge
        shot(page, "snap-edges-up")
    finally:
        page.context.close()


def test_a_scroll_right_after_a_snap_or_the_choice_of_snapping_still_snaps(browser, server):
    """Issue 13 (a bug seen in the last session): a snap's own smooth scroll blocked snapping
    for 400 ms, so a user's scroll begun in that time — right after choosing a snapping mode,
    or right after a snap — came to rest wherever it stopped."""
    page = open_page(browser, server, viewport={"width": 900, "height": 420})
    try:
        wait_images(page)
        edges = lambda: page.evaluate("app.view.last.cells.filter(c => c.kind === 'item').flatMap(c => [c.y, c.y + c.h])")
        page.locator("#scroller").evaluate("s => s.scrollTo(0, 237)")
        settle(page)
        # Choosing the mode aligns the view (a smooth scroll of the page's own); the user scrolls at once.
        menu_click(page, "#view-open")
        page.locator("#view-sheet").wait_for(state="visible")
        box = page.locator("#scroller").bounding_box()
        page.select_option("#snapping", "viewAligned")
        page.wait_for_function("app.drag.state.snapping")
        page.keyboard.press("Escape")
        page.mouse.move(box["x"] + 100, box["y"] + 200)
        page.mouse.wheel(0, 173)
        top = settle(page)
        assert min(abs(top - e) for e in edges()) < 1, (top, sorted(edges()))
        # Again right after a snap of its own.
        for dy in (151, -97):
            page.mouse.wheel(0, 190)
            page.wait_for_function("app.drag.state.snapping", timeout=5000)
            page.mouse.wheel(0, dy)
            top = settle(page)
            assert min(abs(top - e) for e in edges()) < 1, (dy, top, sorted(edges()))
    finally:
        page.context.close()
