"""Issue 10, a "file drop" link: its visitor adds pictures and sees only what the link added;
the owner's open window receives them live. No grid, no other picture of the gallery."""
from conftest import new_page, open_page, shot


def sample_jpeg(server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    snap = server.api("GET", f"/api/galleries/{gallery}")
    apple = next(i for s in snap["sections"] for i in s["items"] if i["title"] == "Apple")
    return server.fetch(apple["thumbnails"]["grid"])[0]


def test_an_uploader_link_adds_a_photo_that_the_owners_open_window_receives_live(browser, server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    link = server.api("POST", f"/api/galleries/{gallery}/links", {"role": "uploader", "allowDownload": False, "showMetadata": False})
    jpeg = sample_jpeg(server)
    owner = open_page(browser, server)
    visitor = new_page(browser, server, user=False, viewport={"width": 800, "height": 700})
    try:
        count = owner.evaluate("app.model.count")
        visitor.goto(server.url + link["url"])
        visitor.wait_for_selector("body[data-ready='1']", timeout=20000)
        name = server.api("GET", "/api/galleries")[0]["name"]
        assert visitor.locator(".filedrop h1").inner_text() == f"Add pictures to “{name}”"
        assert visitor.locator(".drop-zone").is_visible()
        assert visitor.locator("#scroller").is_hidden() and visitor.locator("#bar").is_hidden()
        assert visitor.locator(".drop-list .empty").inner_text() == "Nothing yet."
        assert visitor.locator(".cell").count() == 0

        visitor.set_input_files("#filedrop-input", files=[{"name": "holiday.jpg", "mimeType": "image/jpeg", "buffer": jpeg}])
        visitor.wait_for_selector(".drop-item[data-title='holiday.jpg']")
        # The owner's window, open all along, receives it on the live stream.
        owner.wait_for_function("n => app.model.count === n + 1", arg=count, timeout=10000)
        owner.wait_for_function("() => [...app.model.items.values()].some((i) => i.title === 'holiday.jpg')")
        owner.wait_for_selector(".cell[aria-label='holiday.jpg']", state="attached", timeout=10000)
        # The visitor sees what this link added, and only that.
        visitor.wait_for_function("() => document.querySelector(\".drop-item[data-title='holiday.jpg']\").classList.contains('ready')", timeout=15000)
        assert visitor.locator(".drop-item").count() == 1
        assert "added" in visitor.locator(".drop-item").inner_text()
        shot(visitor, "file-drop")

        # Not an image: refused in the page with a message, nothing sent.
        visitor.set_input_files("#filedrop-input", files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"hello"}])
        visitor.wait_for_function("() => document.querySelector('.drop-status').textContent === 'Only image files can be added.'")
        assert visitor.locator(".drop-item").count() == 1

        # Revoked: the next upload says the link no longer works.
        server.api("DELETE", f"/api/galleries/{gallery}/links/{link['id']}")
        visitor.set_input_files("#filedrop-input", files=[{"name": "late.jpg", "mimeType": "image/jpeg", "buffer": jpeg}])
        visitor.wait_for_selector("#notice .notice-card")
        assert visitor.locator("#notice .notice-message").inner_text() == "This share link no longer works."
    finally:
        visitor.context.close()
        owner.context.close()
