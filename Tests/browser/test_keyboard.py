"""B3: a keyboard drag: Space picks up, arrows move, Space drops, and the live region says so."""
from conftest import server_titles, shot, titles, wait_changed, wait_idle


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
    page.wait_for_timeout(300)
    assert server_titles(server)[0] == after
    shot(page, "keyboard-after")
