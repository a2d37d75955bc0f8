"""F25: galleries are documents — the picker creates, renames, duplicates, opens and deletes
them, and the address names the open one (a reload comes back to it)."""
from conftest import answer, shot, titles, wait_images, menu_click


def options(page):
    return page.evaluate("[...document.querySelectorAll('#gallery-select option')].map(o => o.textContent)")


def test_the_picker_creates_renames_duplicates_opens_and_deletes_galleries(page, server):
    sample = titles(page)
    assert sum(len(s) for s in sample) > 10

    # New: an empty gallery opens, named in the picker and the address.
    menu_click(page, "#gallery-new")
    answer(page, "Holiday")
    page.wait_for_function("app.model.name === 'Holiday'")
    assert page.evaluate("app.model.count") == 0
    holiday = page.evaluate("app.model.id")
    assert page.evaluate("location.hash") == f"#/g/{holiday}"
    assert "Holiday (0)" in options(page)
    assert page.evaluate("document.getElementById('scroller').classList.contains('empty')")  # says what to do
    shot(page, "galleries-new-empty")

    # Rename: the picker and the server follow.
    menu_click(page, "#gallery-rename")
    answer(page, "Holiday 2026")
    page.wait_for_function("[...document.querySelectorAll('#gallery-select option')].some(o => o.textContent === 'Holiday 2026 (0)')")
    assert [g["name"] for g in server.api("GET", "/api/galleries")][-1] == "Holiday 2026"

    # Open the sample again from the picker: its items come back.
    first = server.api("GET", "/api/galleries")[0]["id"]
    page.select_option("#gallery-select", str(first))
    page.wait_for_function(f"app.model.id === {first}")
    wait_images(page)
    assert titles(page) == sample

    # Duplicate: a copy with the same arrangement, opened.
    menu_click(page, "#gallery-duplicate")
    page.wait_for_function(f"app.model.id !== {first} && app.model.count > 0")
    copy = page.evaluate("app.model.id")
    assert titles(page) == sample
    assert len(server.api("GET", "/api/galleries")) == 3

    # A reload comes back to the open gallery.
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("app.model.id") == copy

    # Delete (confirmed): gone from the server and the picker; another gallery opens.
    menu_click(page, "#gallery-delete")
    answer(page)
    page.wait_for_function(f"app.model.id !== {copy} && app.model.id != null")
    assert copy not in [g["id"] for g in server.api("GET", "/api/galleries")]
    assert not any(o.startswith("Holiday 2026 copy") or o.endswith("copy (12)") for o in options(page)) or len(options(page)) == 2
    assert len(options(page)) == 2
    assert not page.evaluate("document.getElementById('scroller').classList.contains('empty')")
    shot(page, "galleries-after-delete")


def test_the_picker_follows_new_renamed_and_deleted_galleries_on_another_device(browser, server):
    """Issue 13, point 6: the gallery list's live stream (GET /api/galleries/events). Two
    devices of one user — two browser contexts, which share no BroadcastChannel — and a second
    account: a gallery created, renamed and deleted on the first shows in the second's picker
    within seconds, with no focus change and no re-read of the list; the other account's
    picker never shows it."""
    from conftest import close_page, open_page, login
    server.add_user("bob", "bob's long password")
    phone = open_page(browser, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    desk = open_page(browser, server, viewport={"width": 1280, "height": 800})
    bob = open_page(browser, server, user=("bob", "bob's long password"))
    try:
        reads = []
        phone.on("request", lambda r: reads.append(r.url) if r.url.endswith("/api/galleries") else None)
        for p in (phone, bob):
            p.wait_for_function("app.picker.streaming")
        bob_before = options(bob)

        menu_click(desk, "#gallery-new")
        answer(desk, "Made on the desk")
        phone.wait_for_function("[...document.querySelectorAll('#gallery-select option')].some(o => o.textContent === 'Made on the desk')", timeout=5000)
        shot(phone, "picker-followed-other-device")
        desk.wait_for_function("app.model.name === 'Made on the desk'")
        menu_click(desk, "#gallery-rename")
        answer(desk, "Renamed on the desk")
        phone.wait_for_function("[...document.querySelectorAll('#gallery-select option')].some(o => o.textContent === 'Renamed on the desk')", timeout=5000)
        assert "Made on the desk" not in options(phone)
        menu_click(desk, "#gallery-delete")
        answer(desk)
        phone.wait_for_function("![...document.querySelectorAll('#gallery-select option')].some(o => o.textContent.startsWith('Renamed on the desk'))", timeout=5000)

        # The phone never read the list again: the stream told it. Bob heard nothing of it.
        assert reads == [], reads
        assert options(bob) == bob_before
        assert not any("desk" in o for o in options(bob))
    finally:
        close_page(phone)
        close_page(desk)
        close_page(bob)
