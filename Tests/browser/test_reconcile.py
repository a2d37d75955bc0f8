"""B2 at any size: the server's changes are followed where they are (Op.controllerLiveChanges,
Op.controllerModelMatches), not by handing the engine the whole arrangement again — and the
engine still ends exactly where the server is: after our own drop, after another window's move,
and when another window's move meets ours on the way (then the page reloads the arrangement)."""
from conftest import (center, item_id, mouse_drag, open_page, server_ids, server_titles, shot, titles, wait_changed,
                      wait_idle, wait_titles)

ENGINE = "app.controller.snapshot().map(s => s.items)"


def followed(page):
    return page.evaluate("({...app.followed})")


def assert_engine_is_server(page, server):
    """The engine's arrangement (ids) is the server's, with nothing of ours on its way."""
    page.wait_for_function(f"ids => !app.drag.inFlight() && JSON.stringify({ENGINE}) === JSON.stringify(ids)",
                           arg=server_ids(server), timeout=5000, polling=50)
    assert titles(page) == server_titles(server)


def test_a_drop_and_another_windows_move_are_followed_in_place(browser, server):
    a = open_page(browser, server)
    b = open_page(browser, server)
    try:
        b.wait_for_selector("#live-state.on")
        a0, b0 = followed(a), followed(b)
        before = titles(a)
        mouse_drag(a, center(a, "Apple"), center(a, "Date"))
        wait_idle(a)
        after = wait_changed(a, before)
        wait_titles(b, after[0], timeout=2000)
        assert_engine_is_server(a, server)
        assert_engine_is_server(b, server)
        # Our own batch came back: the engine showed it already (a check, no reload); the
        # other window applied the move in place.
        a.wait_for_function("app.followed.inPlace > 0", timeout=2000)
        assert followed(a)["whole"] == a0["whole"], followed(a)
        assert followed(b)["inPlace"] == b0["inPlace"] + 1 and followed(b)["whole"] == b0["whole"], followed(b)
        # And back: a move in the second window reaches the first, in place. (Banana, first, onto
        # Date, two cells on: onto its neighbour Cherry, a drop while the lifted grid was still
        # closing Banana's gap could land it where it was, and nothing changed.)
        mouse_drag(b, center(b, "Banana"), center(b, "Date"))
        wait_idle(b)
        again = wait_changed(b, after)
        wait_titles(a, again[0], timeout=2000)
        assert_engine_is_server(a, server)
        assert_engine_is_server(b, server)
        assert followed(a)["whole"] == a0["whole"] and followed(b)["whole"] == b0["whole"]
        shot(a, "reconcile-window-a")
        shot(b, "reconcile-window-b")
    finally:
        a.context.close()
        b.context.close()


def test_a_move_meeting_another_windows_move_reloads_and_both_land(browser, server):
    a = open_page(browser, server)
    try:
        a.wait_for_selector("#live-state.on")
        # Hold the first window's batch until another window's move has reached it.
        a.evaluate("""() => { const fetch0 = window.fetch;
          window.__held = new Promise((r) => { window.__release = r; });
          window.fetch = async (url, init) => { if (String(url).includes('/batch')) { window.__sent = true; await window.__held; }
            return fetch0(url, init); }; }""")
        before = titles(a)
        whole0 = followed(a)["whole"]
        mouse_drag(a, center(a, "Apple"), center(a, "Date"))
        a.wait_for_function("window.__sent === true", timeout=5000)
        # Another window moves the last item of the first section to its front meanwhile.
        gallery = server.api("GET", "/api/galleries")[0]["id"]
        snap = server.api("GET", f"/api/galleries/{gallery}")
        first = snap["sections"][0]["items"]
        last = first[-1]
        server.api("POST", f"/api/galleries/{gallery}/batch", {"baseVersion": snap["version"], "operations": [
            {"op": "move", "items": [last["id"]], "to": {"section": snap["sections"][0]["id"], "index": 0}}]})
        # Our move was on its way: the engine could not apply theirs in place, so the page reads
        # the server's arrangement again (app.reload) — while our batch is still held.
        a.wait_for_function(f"app.followed.whole > {whole0} && app.drag.inFlight() === 1", timeout=5000)
        a.evaluate("window.__release()")
        wait_idle(a)
        # Our batch named its place by neighbours: the server takes it after theirs (409, catch
        # up, again); the page ends where the server is, with both moves.
        a.wait_for_function("!app.drag.inFlight()", timeout=5000)
        assert_engine_is_server(a, server)
        final = titles(a)[0]
        assert final[0] == last["title"]
        assert final.index("Apple") == final.index("Date") + 1, final
        assert final != before[0]
        assert item_id(a, "Apple") is not None
    finally:
        a.context.close()
