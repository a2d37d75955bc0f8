"""B3: a keyboard drag: Space picks up, arrows move, Space drops, and the live region says so."""
from conftest import close_page, open_page, wait_server, server_titles, shot, titles, wait_changed, wait_idle


def test_space_picks_up_apple_arrows_move_it_and_space_drops_it_with_announcements(page, server):
    before = titles(page, 0)
    page.focus("#scroller")
    page.wait_for_function("app.view.last.cells.some(c => c.kind === 'item' && (c.flags & 32))")
    focused = page.evaluate("app.model.items.get(app.view.last.cells.find(c => c.kind === 'item' && (c.flags & 32)).id).title")
    assert focused == "Apple"
    page.keyboard.press(" ")
    page.wait_for_function("/picked up/i.test(document.getElementById('announcer').textContent)")
    picked = page.locator("#announcer").inner_text()
    assert "Apple" in picked and "position" in picked, picked
    assert "\ue000" not in picked and "\ue001" not in picked, picked  # the engine's reference, filled in
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(100)
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(100)
    shot(page, "keyboard-moving")
    page.keyboard.press(" ")
    page.wait_for_function("/dropped at position/i.test(document.getElementById('announcer').textContent)")
    dropped = page.locator("#announcer").inner_text()
    assert "Apple" in dropped, dropped
    wait_idle(page)
    after = wait_changed(page, [before, titles(page, 1)])[0]
    assert after.index("Apple") == 2, after
    assert [t for t in after if t != "Apple"] == [t for t in before if t != "Apple"]
    wait_server(server, after, 0)
    shot(page, "keyboard-after")


def focused_cell(page):
    title = page.evaluate("app.model.items.get(app.view.last.cells.find(c => c.kind === 'item' && (c.flags & 32)).id).title")
    return title, page.locator(f".cell.focused:not(.preview)[aria-label='{title}']").first


def test_arrows_keep_the_focused_tile_on_screen_and_enter_opens_it(page, server):
    """Issue 13: ArrowDown six times on a phone-sized window leaves the focus visible (the grid
    scrolls with it); Enter opens the focused photo, Space still picks it up."""
    page.set_viewport_size({"width": 390, "height": 500})
    page.focus("#scroller")
    page.wait_for_function("app.view.last.cells.some(c => c.kind === 'item' && (c.flags & 32))")
    scroller = page.locator("#scroller").bounding_box()
    for step in range(8):
        page.keyboard.press("ArrowDown")
        # The key is handled by the time two frames have been drawn (the engine's render marks the focus).
        page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.wait_for_function("() => !document.querySelector('.cell.focused:not(.preview)') ? false : true")
        title, tile = focused_cell(page)
        page.wait_for_function(
            """([t, top, bottom]) => { const el = document.querySelector(`.cell.focused:not(.preview)[aria-label="${t}"]`);
                 if (!el) return false; const r = el.getBoundingClientRect(); return r.top >= top - 1 && r.bottom <= bottom + 1; }""",
            arg=[title, scroller["y"], scroller["y"] + scroller["height"]])
    assert page.evaluate("document.getElementById('scroller').scrollTop") > 0, "the grid scrolled with the focus"
    shot(page, "keyboard-focus-scrolled")
    title, _ = focused_cell(page)
    page.keyboard.press("Enter")
    page.wait_for_selector("#detail:not([hidden])")
    assert page.locator("#detail-title").inner_text().startswith(title)
    page.keyboard.press("Escape")
    page.wait_for_selector("#detail", state="hidden")


def test_a_tile_lifted_with_space_stays_on_screen_after_the_column_count_changes(browser, server):
    """Issue 13: Space lifts a tile; Ctrl+wheel (a pinch) changes the columns from 4 to 2 with
    the pointer elsewhere; the grid scrolls so the lifted tile stays in view."""
    page = open_page(browser, server, viewport={"width": 800, "height": 600})
    try:
        page.focus("#scroller")
        page.wait_for_function("app.view.last.cells.some(c => c.kind === 'item' && (c.flags & 32))")
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.keyboard.press(" ")
        page.wait_for_function("/picked up/.test(document.getElementById('announcer').textContent)")
        for _ in range(3):
            page.keyboard.press("ArrowDown")
            page.wait_for_timeout(120)
        box = page.locator("#scroller").bounding_box()
        page.mouse.move(box["x"] + 40, box["y"] + 40)
        for columns in (3, 2):
            page.keyboard.down("Control")
            page.mouse.wheel(0, -100)
            page.keyboard.up("Control")
            page.wait_for_function(f"app.controller.columns === {columns}")
        page.wait_for_timeout(400)  # the cells' move animation
        lifted = page.locator(".cell.lifted:not([hidden])").first
        b = lifted.bounding_box()
        assert b, "no lifted tile drawn"
        assert b["y"] >= box["y"] - 1 and b["y"] + b["height"] <= box["y"] + box["height"] + 1, (b, box)
        shot(page, "keyboard-lifted-after-columns")
        page.keyboard.press("Escape")
        page.wait_for_function("app.view.last.phase === 'idle'")
    finally:
        close_page(page)
