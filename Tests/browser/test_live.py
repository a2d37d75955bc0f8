"""B2 and F24: two windows on one gallery see each other's moves at once; the order survives a
server restart."""
import time

from conftest import (center, mouse_drag, open_page, server_titles, shot, titles, wait_changed,
                      wait_idle, wait_images, wait_titles)


def test_a_move_in_one_window_appears_in_the_other_within_a_second(browser, server):
    a = open_page(browser, server)
    b = open_page(browser, server)
    try:
        b.wait_for_selector("#live-state.on")
        before = titles(a)
        assert titles(b) == before
        mouse_drag(a, center(a, "Apple"), center(a, "Date"))
        wait_idle(a)
        after = wait_changed(a, before)
        t0 = time.time()
        wait_titles(b, after[0], timeout=1000)
        assert time.time() - t0 < 1.0
        # And back the other way: a swap in the second window reaches the first.
        b.select_option("#drop-mode", "swap")
        mouse_drag(b, center(b, "Banana"), center(b, "Cherry"))
        wait_idle(b)
        swapped = wait_changed(b, after)
        wait_titles(a, swapped[0], timeout=1000)
        wait_images(a)
        shot(a, "live-window-a")
        shot(b, "live-window-b")
        assert server_titles(server) == swapped
    finally:
        a.context.close()
        b.context.close()


def test_the_order_survives_a_server_restart(page, server):
    before = titles(page)
    mouse_drag(page, center(page, "Apple"), center(page, "Date"))
    wait_idle(page)
    after = wait_changed(page, before)
    page.wait_for_timeout(300)
    assert server_titles(server) == after
    server.restart()
    assert server_titles(server) == after
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    wait_images(page)
    assert titles(page) == after


RECORD_EVENTS = """() => { window.__liveEvents = [];
  const receive = app.live.receive.bind(app.live);
  app.live.receive = (e) => { window.__liveEvents.push(e.type); receive(e); }; }"""


def test_a_window_whose_stream_was_cut_catches_up_by_diff(browser, server):
    a = open_page(browser, server)
    b = open_page(browser, server)
    try:
        b.wait_for_selector("#live-state.on")
        b.evaluate(RECORD_EVENTS)
        # The stream is cut (as a lost connection does; Chromium's offline emulation leaves an
        # open EventSource alone, so the page closes it).
        b.evaluate("app.live.close()")
        before = titles(a)
        mouse_drag(a, center(a, "Apple"), center(a, "Date"))
        wait_idle(a)
        moved = wait_changed(a, before)
        a.select_option("#drop-mode", "swap")
        mouse_drag(a, center(a, "Banana"), center(a, "Cherry"))
        wait_idle(a)
        swapped = wait_changed(a, moved)
        b.wait_for_timeout(300)
        assert titles(b) == before  # cut off: it has seen nothing
        # It reconnects as its error handler does: with the version it has.
        b.evaluate("app.live.follow(app.model.id, app.model.version)")
        wait_titles(b, swapped[0], timeout=3000)
        b.wait_for_selector("#live-state.on")
        # It caught up from its version with the staged changes, not a whole snapshot.
        events = b.evaluate("window.__liveEvents")
        assert "changes" in events and "snapshot" not in events, events
        wait_images(b)
        shot(b, "live-caught-up")
    finally:
        a.context.close()
        b.context.close()


def test_a_window_that_reconnects_after_a_server_restart_catches_up_by_diff(browser, server):
    a = open_page(browser, server)
    b = open_page(browser, server)
    try:
        b.wait_for_selector("#live-state.on")
        b.evaluate(RECORD_EVENTS)
        b.evaluate("app.live.close()")
        before = titles(a)
        mouse_drag(a, center(a, "Apple"), center(a, "Date"))
        wait_idle(a)
        moved = wait_changed(a, before)
        page_version = b.evaluate("app.model.version")
        # The server restarts (its catch-up window is rebuilt from SQLite), then the cut-off
        # window comes back with the version it has.
        server.restart()
        b.evaluate("app.live.follow(app.model.id, app.model.version)")
        wait_titles(b, moved[0], timeout=3000)
        events = b.evaluate("window.__liveEvents")
        assert "changes" in events and "snapshot" not in events, events
        assert b.evaluate("app.model.version") > page_version
    finally:
        a.context.close()
        b.context.close()


def test_a_rename_in_one_window_reaches_the_other(browser, server):
    a = open_page(browser, server)
    b = open_page(browser, server)
    try:
        b.wait_for_selector("#live-state.on")
        a.once("dialog", lambda d: d.accept("Renamed elsewhere"))
        a.click("#gallery-rename")
        b.wait_for_function("app.model.name === 'Renamed elsewhere'", timeout=3000)
        b.wait_for_function("[...document.querySelectorAll('#gallery-select option')]"
                            ".some(o => o.textContent.startsWith('Renamed elsewhere ('))", timeout=3000)
    finally:
        a.context.close()
        b.context.close()
