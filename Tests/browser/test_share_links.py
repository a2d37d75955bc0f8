"""Issue 10, share links: the owner shares a viewer link from the Share dialog; a visitor
with no account opens it, sees the grid and the slideshow, and can move nothing (a mouse
drag and a touch long press lift nothing, in the engine); the owner revokes it and the
visitor's page says so within a second. Passwords, expired and revoked links."""
import time

from conftest import cell, center, mouse_drag, new_page, open_page, server_titles, shot, wait_images


def touch(cdp, kind, x=None, y=None):
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4, "force": 1}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def create_link_in_dialog(owner, role="viewer", password=None, expires=None, metadata=False, download=False):
    """Creates a link in the owner's Share dialog; answers its URL as shown once."""
    owner.click("#share-open")
    dialog = owner.locator("dialog.share-dialog")
    dialog.wait_for()
    form = dialog.locator("form.share-form")
    form.locator("select[name=role]").select_option(role)
    if password:
        form.locator("input[name=password]").fill(password)
    if expires:
        form.locator("select[name=expires]").select_option(expires)
    if metadata:
        form.locator("input[name=showMetadata]").check()
    if download:
        form.locator("input[name=allowDownload]").check()
    form.locator("button[type=submit]").click()
    url = dialog.locator(".created-link .copy-value")
    url.wait_for()
    assert dialog.locator(".created-link .once").inner_text() == "Copy this link now: it is shown only once."
    return url.input_value()


def boxes(page):
    """Every visible grid cell's box in content coordinates, by title."""
    return page.evaluate("""() => {
      const top = document.getElementById('scroller').getBoundingClientRect().top - document.getElementById('scroller').scrollTop;
      return Object.fromEntries([...document.querySelectorAll('.cell:not(.preview):not([hidden])')].map((c) => {
        const r = c.getBoundingClientRect();
        return [c.getAttribute('aria-label'), [Math.round(r.x), Math.round(r.y - top), Math.round(r.width), Math.round(r.height)]];
      }));
    }""")


def assert_nothing_lifted(page):
    assert page.evaluate("app.view.last.phase") == "idle"
    assert page.locator(".cell.lifted:not([hidden]), .cell.preview:not([hidden])").count() == 0
    assert page.locator("#detail").is_hidden()


def test_a_viewer_link_shows_the_grid_and_slideshow_lifts_nothing_and_ends_when_revoked(browser, server):
    owner = open_page(browser, server)
    visitor = None
    try:
        url = create_link_in_dialog(owner)
        assert url.startswith(server.url + "/s/") and len(url) > len(server.url + "/s/") + 20
        shot(owner, "share-dialog")
        row = owner.locator("dialog.share-dialog .link-row")
        assert row.count() == 1
        text = row.inner_text()
        assert "Viewer" in text and "no password" in text and "last used never" in text and "expires 20" in text

        visitor = new_page(browser, server, user=False, has_touch=True, viewport={"width": 1000, "height": 760})
        visitor.goto(url)
        visitor.wait_for_selector("body[data-ready='1']", timeout=20000)
        wait_images(visitor)
        arranged = server_titles(server)
        # The grid, as arranged, and no control that changes it.
        assert cell(visitor, "Apple").is_visible() and cell(visitor, "Date").is_visible()
        assert visitor.locator("#role-badge").inner_text() == "Shared with you · viewer"
        for control in ["#add-open", "#add-url", "#trash", "#undo", "#gallery-rename", "#gallery-delete", "#gallery-new", "#share-open", "#user-menu"]:
            assert visitor.locator(control).is_hidden(), f"{control} is shown to a viewer"
        assert visitor.evaluate("app.controller.readOnly") is True
        shot(visitor, "link-visitor-viewer")
        before = boxes(visitor)

        # A mouse drag of Apple onto Date: no lift, nothing moves, no detail opens. A viewer's
        # tiles start no HTML5 drag, so no dragover can answer: the drop comes without waiting.
        mouse_drag(visitor, center(visitor, "Apple"), center(visitor, "Date"), pause=False)
        assert visitor.evaluate("window.__lastDragover === undefined"), "a viewer's drag reached dragover"
        visitor.wait_for_timeout(300)
        assert_nothing_lifted(visitor)
        assert boxes(visitor) == before

        # A touch long press on Banana, held past the long-press time, then moved to Date.
        cdp = visitor.context.new_cdp_session(visitor)
        x0, y0 = center(visitor, "Banana")
        x1, y1 = center(visitor, "Date")
        touch(cdp, "touchStart", x0, y0)
        visitor.wait_for_timeout(800)
        assert_nothing_lifted(visitor)
        for i in range(1, 9):
            touch(cdp, "touchMove", x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
            visitor.wait_for_timeout(20)
        assert_nothing_lifted(visitor)
        touch(cdp, "touchEnd")
        visitor.wait_for_timeout(300)
        assert_nothing_lifted(visitor)
        visitor.evaluate("document.getElementById('scroller').scrollTop = 0")
        visitor.wait_for_timeout(100)
        assert boxes(visitor) == before
        assert server_titles(server) == arranged

        # The slideshow, in the arranged order.
        visitor.click("#slideshow-open")
        caption = visitor.locator(".slideshow .slide-caption")
        caption.wait_for()
        total = sum(len(s) for s in arranged)
        assert caption.inner_text() == f"{arranged[0][0]} — 1 of {total}"
        visitor.keyboard.press("ArrowRight")
        assert caption.inner_text() == f"{arranged[0][1]} — 2 of {total}"
        visitor.keyboard.press("Escape")
        visitor.locator(".slideshow").wait_for(state="detached")

        # The owner's list shows the link's last use now.
        owner.locator("dialog.share-dialog .close").click()
        owner.click("#share-open")
        row = owner.locator("dialog.share-dialog .link-row")
        row.wait_for()
        assert "last used never" not in row.inner_text()

        # Revoked: the visitor's page says so within a second, and the grid is unusable.
        with owner.expect_response(lambda r: r.request.method == "DELETE" and "/links/" in r.url) as revoked:
            row.locator("button", has_text="Revoke").click()
        assert revoked.value.status == 204
        visitor.wait_for_selector("#notice .notice-card", timeout=1000)
        assert visitor.locator("#notice h1").inner_text() == "Access ended"
        assert visitor.locator("#notice .notice-message").inner_text() == "This share link was revoked."
        assert visitor.evaluate("document.getElementById('scroller').inert") is True
        assert visitor.evaluate("app.controller.readOnly") is True
        shot(visitor, "link-visitor-revoked")
        owner.wait_for_selector("dialog.share-dialog .rows .empty")
    finally:
        if visitor:
            visitor.context.close()
        owner.context.close()


def test_a_password_link_asks_for_it_and_says_when_it_is_wrong(browser, server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    link = server.api("POST", f"/api/galleries/{gallery}/links",
                      {"role": "viewer", "password": "open sesame", "allowDownload": False, "showMetadata": False})
    visitor = new_page(browser, server, user=False)
    try:
        visitor.goto(server.url + link["url"])
        form = visitor.locator("#gate form")
        form.wait_for()
        assert visitor.locator("#gate h1").inner_text() == "This link needs a password"
        shot(visitor, "link-password")
        form.locator("input[name=password]").fill("wrong guess")
        form.locator("button[type=submit]").click()
        error = form.locator(".form-error")
        error.wait_for()
        assert error.inner_text() == "Wrong password."
        form.locator("input[name=password]").fill("open sesame")
        form.locator("button[type=submit]").click()
        visitor.wait_for_selector("body[data-ready='1']", timeout=20000)
        assert cell(visitor, "Apple").is_visible()
        assert visitor.locator("#gate").is_hidden()
    finally:
        visitor.context.close()


def test_a_revoked_link_and_an_unknown_link_say_plainly_that_they_do_not_work(browser, server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    link = server.api("POST", f"/api/galleries/{gallery}/links", {"role": "editor", "allowDownload": False, "showMetadata": False})
    server.api("DELETE", f"/api/galleries/{gallery}/links/{link['id']}")
    visitor = new_page(browser, server, user=False)
    try:
        visitor.goto(server.url + link["url"])
        visitor.wait_for_selector("#gate .gate-message")
        assert visitor.locator("#gate h1").inner_text() == "This link no longer works"
        assert "revoked" in visitor.locator("#gate .gate-message").inner_text()
        assert visitor.locator("#scroller").is_hidden()
        shot(visitor, "link-revoked-on-open")
        visitor.goto(server.url + "/s/" + "A" * 43)
        visitor.wait_for_selector("#gate .gate-message")
        assert visitor.locator("#gate h1").inner_text() == "This link does not exist"
    finally:
        visitor.context.close()


def test_an_editor_link_may_arrange(browser, server):
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    link = server.api("POST", f"/api/galleries/{gallery}/links", {"role": "editor", "allowDownload": False, "showMetadata": False})
    visitor = new_page(browser, server, user=False)
    try:
        visitor.goto(server.url + link["url"])
        visitor.wait_for_selector("body[data-ready='1']", timeout=20000)
        wait_images(visitor)
        assert visitor.evaluate("app.controller.readOnly") is False
        assert visitor.locator("#add-open").is_visible()
        assert visitor.locator("#trash").is_visible() and visitor.locator("#share-open").is_hidden()
        before = server_titles(server)[0]
        mouse_drag(visitor, center(visitor, "Apple"), center(visitor, "Date"))
        deadline = time.time() + 5
        while server_titles(server)[0] == before and time.time() < deadline:
            visitor.wait_for_timeout(50)
        assert server_titles(server)[0] != before
    finally:
        visitor.context.close()
