"""F3: in swap mode, dragging a tile onto another exchanges the two; the server keeps it."""
import time

import pytest

from conftest import wait_server, center, wait_titles, mouse_drag, screen, server_titles, shot, titles, wait_idle, wait_images, view_setting


def test_dragging_banana_onto_date_in_swap_mode_swaps_them_and_a_reload_keeps_it(page, server):
    view_setting(page, "#drop-mode", "swap")
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
    view_setting(page, "#drop-mode", "swap")
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
    wait_server(server, expected, 0)
    # One step back restores both pairs, on the server too.
    page.click("#undo")
    wait_titles(page, before)
    wait_server(server, before, 0)


def test_the_hovered_swap_target_shrinks_and_fades_on_screen_and_a_drop_without_a_pause_swaps(page, server):
    """F4 on screen: while Banana hovers over Date in swap mode, Date is drawn at 0.9× its size
    and opacity 0.5 (its box smaller than Cherry's beside it), the others keep their places.
    Then the hand lets go at once (no pause after the last move): the swap still lands."""
    view_setting(page, "#drop-mode", "swap")
    before = titles(page, 0)
    start = screen(page)["cells"]
    seen = {}

    def hovering():
        def cue():
            cells = {c["title"]: c for c in screen(page)["cells"]}
            date = cells["Date"]
            return date if date["target"] and abs(date["opacity"] - 0.5) < 0.01 and "matrix(0.9," in date["transform"] else None
        deadline = time.time() + 5
        while not (found := cue()) and time.time() < deadline:
            page.wait_for_timeout(30)
        assert found, f"Date never showed the swap-target cue: {screen(page)['cells']}"
        seen["date"] = found
        was = {c["title"]: c for c in start}
        assert found["w"] == pytest.approx(was["Date"]["w"] * 0.9, abs=1), (found, was["Date"])
        # In swap mode nothing shifts aside while hovering: Apple and Cherry stay where they were.
        now = {c["title"]: c for c in screen(page)["cells"]}
        for t in ("Apple", "Cherry"):
            assert (now[t]["x"], now[t]["y"]) == pytest.approx((was[t]["x"], was[t]["y"]), abs=1), t

    mouse_drag(page, center(page, "Banana"), center(page, "Date"), before_drop=hovering)
    wait_idle(page)
    expected = list(before)
    expected[1], expected[3] = "Date", "Banana"
    wait_titles(page, expected)
    # Settled: the cue is gone.
    date = next(c for c in screen(page)["cells"] if c["title"] == "Date")
    assert date["opacity"] == 1 and not date["target"], date
    # A drop right after the move, with no pause: Banana and Date swap back.
    mouse_drag(page, center(page, "Banana"), center(page, "Date"), pause=False)
    wait_idle(page)
    wait_titles(page, before)
    assert server_titles(server)[0] == before
