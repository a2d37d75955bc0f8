"""Issue 10, "present it": the slideshow shows the pictures in the arranged order, full
window, with arrows, a swipe, autoplay at a chosen interval, and Esc; "Download" gives the
originals as a zip in the arranged order where allowed."""
import io
import zipfile

from conftest import new_page, server_titles, shot, menu_click


def test_the_slideshow_follows_the_arranged_order_steps_plays_and_closes(page, server):
    arranged = [t for s in server_titles(server) for t in s]
    page.click("#slideshow-open")
    show = page.locator(".slideshow")
    show.wait_for()
    caption = show.locator(".slide-caption")
    n = len(arranged)
    assert caption.inner_text() == f"{arranged[0]} — 1 of {n}"
    box = show.bounding_box()
    assert box["width"] == page.viewport_size["width"] and box["height"] == page.viewport_size["height"]
    page.wait_for_function("() => document.querySelector('.slide-image').complete && document.querySelector('.slide-image').naturalWidth > 0")
    shot(page, "slideshow")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert caption.inner_text() == f"{arranged[2]} — 3 of {n}"
    page.keyboard.press("ArrowLeft")
    assert caption.inner_text() == f"{arranged[1]} — 2 of {n}"
    show.locator(".slide-nav.prev").click()
    show.locator(".slide-nav.prev").click()
    assert caption.inner_text() == f"{arranged[-1]} — {n} of {n}"   # it wraps around
    # Autoplay at 2 s: the next picture comes by itself.
    show.locator("select").select_option("2")
    show.locator(".slide-play").click()
    assert show.locator(".slide-play").inner_text() == "Pause"
    page.wait_for_function(f"() => document.querySelector('.slide-caption').textContent.startsWith({arranged[0]!r})", timeout=4000)
    page.keyboard.press(" ")
    assert show.locator(".slide-play").inner_text() == "Play"
    # The grid behind did not take the keys (Space would pick up the focused tile).
    assert page.evaluate("app.view.last.phase") == "idle"
    page.keyboard.press("Escape")
    show.wait_for(state="detached")
    assert page.locator("#detail").is_hidden()


def test_a_swipe_steps_the_slideshow_on_a_phone(browser, server):
    phone = new_page(browser, server, has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844})
    try:
        phone.goto(server.url + "/")
        phone.wait_for_selector("body[data-ready='1']", timeout=20000)
        arranged = [t for s in server_titles(server) for t in s]
        menu_click(phone, "#slideshow-open")
        caption = phone.locator(".slideshow .slide-caption")
        caption.wait_for()
        cdp = phone.context.new_cdp_session(phone)
        for kind, x in [("touchStart", 300), ("touchMove", 220), ("touchMove", 120), ("touchEnd", None)]:
            points = [] if x is None else [{"x": x, "y": 400, "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
            phone.wait_for_timeout(30)
        phone.wait_for_function(f"() => document.querySelector('.slide-caption').textContent.startsWith({arranged[1]!r})")
        shot(phone, "slideshow-phone")
    finally:
        phone.context.close()


def test_download_gives_the_originals_as_a_zip_in_the_arranged_order(page, server):
    arranged = [t for s in server_titles(server) for t in s]
    with page.expect_download() as download:
        page.click("#download")
    path = download.value.path()
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    assert len(names) == len(arranged)
    assert [n.split("-", 1)[0] for n in names] == [f"{k:04d}" for k in range(1, len(names) + 1)]
    assert names[0].startswith("0001-" + arranged[0])


def test_a_link_without_download_offers_no_download_button(browser, server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    plain = server.api("POST", f"/api/galleries/{gallery}/links", {"role": "viewer", "allowDownload": False, "showMetadata": False})
    full = server.api("POST", f"/api/galleries/{gallery}/links", {"role": "viewer", "allowDownload": True, "showMetadata": True})
    for link, offered in [(plain, False), (full, True)]:
        visitor = new_page(browser, server, user=False)
        try:
            visitor.goto(server.url + link["url"])
            visitor.wait_for_selector("body[data-ready='1']", timeout=20000)
            assert visitor.locator("#download").is_visible() == offered
            assert visitor.locator("#slideshow-open").is_visible()
        finally:
            visitor.context.close()
