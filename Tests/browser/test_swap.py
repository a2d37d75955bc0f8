"""F3: in swap mode, dragging a tile onto another exchanges the two; the server keeps it."""
from conftest import center, wait_titles, mouse_drag, server_titles, shot, titles, wait_idle, wait_images


def test_dragging_banana_onto_date_in_swap_mode_swaps_them_and_a_reload_keeps_it(page, server):
    page.select_option("#drop-mode", "swap")
    before = titles(page, 0)
    assert before[:4] == ["Apple", "Banana", "Cherry", "Date"]
    mouse_drag(page, center(page, "Banana"), center(page, "Date"))
    wait_idle(page)
    expected = list(before)
    expected[1], expected[3] = "Date", "Banana"
    wait_titles(page, expected)
    shot(page, "swap-after")
    assert server_titles(server)[0] == expected
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    wait_images(page)
    assert titles(page, 0) == expected
    # The screen agrees with the model: Date now sits where Banana was (left of Cherry's column).
    bx, by = center(page, "Date")
    cx, cy = center(page, "Cherry")
    assert bx < cx


def test_two_selected_tiles_dropped_on_date_in_swap_mode_swap_with_date_and_the_next_one(page, server):
    """F3 with F17: the carried tiles exchange places pairwise with the hovered tile and the
    one after it (in reading order); one undoable step; the server keeps it."""
    from conftest import cell
    page.select_option("#drop-mode", "swap")
    before = titles(page, 0)
    assert before[:5] == ["Apple", "Banana", "Cherry", "Date", "Dragon"]
    for t in ("Apple", "Banana"):
        cell(page, t).click(modifiers=["Control"])
    page.wait_for_function("app.view.selection.size === 2")
    mouse_drag(page, center(page, "Apple"), center(page, "Date"))
    wait_idle(page)
    expected = list(before)
    expected[0], expected[3] = "Date", "Apple"
    expected[1], expected[4] = "Dragon", "Banana"
    wait_titles(page, expected)
    shot(page, "swap-two-after")
    page.wait_for_timeout(300)
    assert server_titles(server)[0] == expected
    # One step back restores both pairs, on the server too.
    page.click("#undo")
    wait_titles(page, before)
    page.wait_for_timeout(300)
    assert server_titles(server)[0] == before
