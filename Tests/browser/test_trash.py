"""F21: dropping a tile on the trash can removes it from the gallery; the trash panel restores it."""
from conftest import wait_server, center, mouse_drag, server_titles, shot, titles, wait_changed, wait_idle, wait_titles


def test_dragging_banana_to_the_trash_removes_it_and_restore_brings_it_back(page, server):
    before = titles(page)
    assert page.locator("#trash-count").inner_text() == "0"
    assert not page.locator("#trash-count").is_visible(), "an empty trash shows no badge"
    box = page.locator("#trash").bounding_box()
    mouse_drag(page, center(page, "Banana"), (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    wait_idle(page)
    after = wait_changed(page, before)
    assert "Banana" not in after[0]
    assert after[0] == [t for t in before[0] if t != "Banana"]
    page.wait_for_function("document.getElementById('trash-count').textContent === '1'")
    assert page.locator("#trash-count").is_visible(), "the badge shows the one item in the trash"
    assert page.locator(".cell:not([hidden])[aria-label='Banana']").count() == 0
    shot(page, "trash-after-drop")
    wait_server(server, after[0], 0)
    page.click("#trash")
    page.wait_for_selector("#trash-panel:not([hidden])")
    row = page.locator("#trash-list li", has_text="Banana")
    row.wait_for()
    shot(page, "trash-panel")
    row.locator("button", has_text="Restore").click()
    wait_titles(page, before[0])
    page.wait_for_function("document.getElementById('trash-count').textContent === '0'")
    assert not page.locator("#trash-count").is_visible(), "emptied again: no badge"
    assert server_titles(server) == before
