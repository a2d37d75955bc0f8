"""B4: undo and redo of a move, by keys and by the toolbar, on the server too."""
from conftest import wait_server, center, mouse_drag, server_titles, titles, wait_changed, wait_idle, wait_images, wait_titles


def test_a_move_is_undone_and_redone_with_keys_and_buttons_and_the_server_follows(page, server):
    before = titles(page, 0)
    mouse_drag(page, center(page, "Apple"), center(page, "Dragon"))
    wait_idle(page)
    moved = wait_changed(page, [before, titles(page, 1)])[0]
    assert moved.index("Apple") > 0
    wait_server(server, moved, 0)
    assert page.locator("#undo").is_enabled()

    page.focus("#scroller")
    page.keyboard.press("Control+z")
    wait_titles(page, before)
    wait_server(server, before, 0)
    assert page.locator("#redo").is_enabled()

    page.keyboard.press("Control+Shift+z")
    wait_titles(page, moved)
    wait_server(server, moved, 0)

    page.click("#undo")
    wait_titles(page, before)
    page.click("#redo")
    wait_titles(page, moved)
    page.wait_for_timeout(400)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    wait_images(page)
    assert titles(page, 0) == moved
