"""Issue 15's limits: the server takes at most --max-batch-items items in one batch (413 naming
its limit above it), so a big batch cannot hold up every other write to the gallery. The page
sends a bigger change — a selection moved, its undo, a selection trashed — as several batches
in order (Web/js/parts.js), and what the user sees, the server and another window all end with
the order one batch would have made. Here the limit is 3, so seven photos go in three parts."""
import json
import shutil
import urllib.error

import pytest

from conftest import Server, cell, open_page, server_titles, shot, titles, wait_screen, wait_server

LIMIT = 3


@pytest.fixture
def small_batches():
    s = Server(args=["--max-batch-items", str(LIMIT)]).start()
    yield s
    s.stop()
    shutil.rmtree(s.data, ignore_errors=True)


def version(server):
    gallery = server.api("GET", "/api/galleries")[0]
    return server.api("GET", f"/api/galleries/{gallery['id']}")["version"]


def test_a_selection_over_the_batch_limit_moves_in_parts_and_lands_as_one_move_would(browser, small_batches):
    server = small_batches
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    # The server refuses a batch over its limit, naming the limit.
    ids = [i["id"] for i in server.api("GET", f"/api/galleries/{gallery}")["sections"][0]["items"]][:LIMIT + 1]
    with pytest.raises(urllib.error.HTTPError) as refused:
        server.api("POST", f"/api/galleries/{gallery}/batch", {"operations": [{"op": "trash", "items": ids}]})
    assert refused.value.code == 413
    error = json.loads(refused.value.read())["error"]
    assert error["maxItems"] == LIMIT and "send it in parts" in error["message"]

    page = open_page(browser, server, viewport={"width": 1280, "height": 900})
    other = open_page(browser, server, viewport={"width": 1280, "height": 900})
    try:
        before = titles(page)
        picked = before[0][:7]
        assert len(picked) == 7 and len(before) >= 2
        cell(page, picked[0]).click(modifiers=["Control"])
        cell(page, picked[-1]).click(modifiers=["Shift"])
        page.wait_for_function("document.getElementById('select-count').textContent === '7 selected'")
        start = version(server)
        page.select_option("#select-move", label=page.evaluate("app.model.sectionList[1].title"))
        moved = [before[0][7:], before[1] + picked] + before[2:]
        wait_server(server, moved, timeout=10)
        wait_screen(page, moved[1], 1, timeout=10000)
        wait_screen(page, moved[0], 0, timeout=10000)
        wait_screen(other, moved[1], 1, timeout=10000)
        assert version(server) - start == 3, "seven items with a limit of three: three batches"
        # The page followed the server (one reload after the last part) and says nothing went wrong.
        page.wait_for_function(f"app.inParts === 0 && app.model.version === {start + 3}")
        assert titles(page) == moved == server_titles(server)
        assert "Saved" not in page.locator("#toast").inner_text()
        shot(other, "parts-moved-other-window")

        # One step of undo puts all seven back, again in parts.
        page.locator("#scroller").focus()
        page.keyboard.press("Control+z")
        wait_server(server, before, timeout=10)
        wait_screen(page, before[0], 0, timeout=10000)
        wait_screen(other, before[0], 0, timeout=10000)
        assert version(server) - start == 6

        # A range put in the trash goes in parts too; the trash counts them all.
        cell(page, picked[0]).click(modifiers=["Control"])
        cell(page, picked[4]).click(modifiers=["Shift"])
        page.wait_for_function("document.getElementById('select-count').textContent === '5 selected'")
        page.click("#select-trash")
        trashed = [before[0][5:]] + before[1:]
        wait_server(server, trashed, timeout=10)
        wait_screen(page, trashed[0], 0, timeout=10000)
        page.wait_for_function("document.getElementById('trash-count').textContent === '5'")
        assert version(server) - start == 8
    finally:
        page.context.close()
        other.context.close()


def test_a_section_over_the_batch_limit_is_deleted_in_parts_and_one_undo_brings_it_back(browser, small_batches):
    """Issue 15's limits, session 19: a section's delete puts its photos in the trash, and the
    server counts them against its batch limit (their rows are what holds the writer: a section
    of 10,000 at 1M on PostgreSQL ~70 ms). Over the limit it refuses the delete (413, `maxItems`);
    the page puts the photos in the trash in parts and deletes the section with the last one, and
    one step of undo brings the section and its photos back, again in parts."""
    from test_section_edit import menu, server_sections, wait_headers, wait_server_sections

    server = small_batches
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    before = server_sections(server)
    first, photos = before[0]
    assert len(photos) > LIMIT
    section = server.api("GET", f"/api/galleries/{gallery}")["sections"][0]["id"]
    with pytest.raises(urllib.error.HTTPError) as refused:
        server.api("POST", f"/api/galleries/{gallery}/batch", {"operations": [{"op": "deleteSection", "section": section}]})
    assert refused.value.code == 413
    error = json.loads(refused.value.read())["error"]
    assert error["maxItems"] == LIMIT and "send it in parts" in error["message"], error
    assert server_sections(server) == before, "nothing changed"

    page = open_page(browser, server, viewport={"width": 1280, "height": 900})
    other = open_page(browser, server, viewport={"width": 1280, "height": 900})
    try:
        start = version(server)
        rest = [t for t, _ in before[1:]]
        menu(page, first, "delete")
        wait_server_sections(page, server, lambda s: [t for t, _ in s] == rest, timeout=10000)
        wait_headers(page, rest, timeout=10000)
        wait_headers(other, rest, timeout=10000)
        page.wait_for_function(f"document.getElementById('trash-count').textContent === '{len(photos)}'")
        parts = -(-len(photos) // LIMIT)
        page.wait_for_function(f"app.inParts === 0 && app.model.version === {start + parts}")
        assert version(server) - start == parts, f"{len(photos)} photos with a limit of {LIMIT}: {parts} batches, the delete with the last"
        assert "Saved" not in page.locator("#toast").inner_text()
        for t in photos:
            assert page.locator(f".cell:not([hidden])[aria-label='{t}']").count() == 0
        assert server_sections(server) == before[1:]
        shot(other, "parts-section-deleted-other-window")

        # One step of undo: the section and its photos back in their order, in parts.
        page.locator("#scroller").focus()
        page.keyboard.press("Control+z")
        wait_server_sections(page, server, lambda s: s == before, timeout=10000)
        wait_headers(page, [t for t, _ in before], timeout=10000)
        wait_headers(other, [t for t, _ in before], timeout=10000)
        page.wait_for_function("app.inParts === 0 && document.getElementById('trash-count').textContent === '0'")
        wait_screen(page, photos, 0, timeout=10000)
        wait_screen(other, photos, 0, timeout=10000)
        assert "Saved" not in page.locator("#toast").inner_text()
    finally:
        page.context.close()
        other.context.close()
