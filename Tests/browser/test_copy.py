"""F29: holding Alt (Option) during a mouse drag copies: the original stays, a copy appears."""
from conftest import wait_server, center, item_id, mouse_drag, server_titles, shot, titles, wait_changed, wait_idle


def test_alt_drag_of_apple_leaves_apple_and_adds_a_copy_where_it_was_dropped(page, server):
    before = titles(page, 0)
    apple = item_id(page, "Apple")
    mouse_drag(page, center(page, "Apple"), center(page, "Dragon"), hold_keys=("Alt",))
    wait_idle(page)
    after = wait_changed(page, [before, titles(page, 1)])[0]
    assert len(after) == len(before) + 1, after
    assert after.count("Apple") == 2, after
    ids = page.evaluate("app.sections({confirmed: true})[0].items.map(i => i.id)")
    assert ids[0] == apple  # the original stays first
    copy = [i for i, t in enumerate(after) if t == "Apple"][1]
    assert copy == before.index("Dragon"), after  # the copy takes Dragon's place; Dragon and the rest shift on
    assert [t for i, t in enumerate(after) if i != copy] == before  # nothing else moved
    wait_server(server, after, 0)
    shot(page, "copy-after")
