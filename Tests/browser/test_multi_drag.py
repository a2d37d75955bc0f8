"""F17: Ctrl-click selects several tiles; dragging one of them carries all, in order."""
from conftest import wait_server, wait_changed, cell, center, mouse_drag, server_titles, shot, titles, wait_idle


def test_three_selected_tiles_move_together_in_order(page, server):
    before = titles(page, 0)
    chosen = ["Banana", "Date", "Sheep"]
    for t in chosen:
        cell(page, t).click(modifiers=["Control"])
    page.wait_for_function("app.view.selection.size === 3")
    page.wait_for_function("document.querySelectorAll('.cell.selected:not([hidden])').length === 3")  # drawn selected
    assert page.locator("#detail").is_hidden()  # Ctrl-click selects, it does not open
    shot(page, "multi-selected")
    mouse_drag(page, center(page, "Banana"), center(page, "X-Code"))
    wait_idle(page)
    after = wait_changed(page, [before, titles(page, 1)])[0]
    i = after.index("Banana")
    assert after[i:i + 3] == chosen, after  # together, in their order
    assert i > before.index("Banana")
    assert [t for t in after if t not in chosen] == [t for t in before if t not in chosen]
    wait_server(server, after, 0)
    assert page.locator(".cell.selected").count() == 0  # the drag ends the selection
    shot(page, "multi-after")
