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
