"""Issue 13: the page asks in its own dialogs, never prompt(), alert() or confirm() — new gallery,
rename, delete and Add from a link: labelled, validated in the dialog, Esc to cancel, the focus
in the field and back where it was, usable with a finger at 390×844 and with the keyboard."""
from conftest import answer, close_page, menu_click, open_page, shot

PHONE = dict(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
DESKTOP = dict(viewport={"width": 1280, "height": 800})

NO_NATIVE = """() => { window.nativeAsked = [];
  for (const f of ['prompt', 'alert', 'confirm']) window[f] = (...a) => { window.nativeAsked.push(f); return null; }; }"""


def box(locator):
    return locator.bounding_box()


def test_new_gallery_on_a_phone_validates_cancels_with_escape_and_creates(browser, server):
    page = open_page(browser, server, **PHONE)
    try:
        page.evaluate(NO_NATIVE)
        count = len(server.api("GET", "/api/galleries"))
        page.locator("#more-open").tap()
        page.locator("#gallery-new").tap()
        dialog = page.locator("dialog.ask[open]")
        dialog.wait_for(state="visible")
        # On screen, above where the keyboard opens, with a named field holding the focus.
        b = box(dialog)
        assert b["x"] >= 0 and b["x"] + b["width"] <= 390 and b["y"] >= 0 and b["y"] + b["height"] <= 844 * 0.6, b
        assert dialog.get_attribute("aria-labelledby") and dialog.locator("h2").inner_text() == "New gallery"
        field = page.get_by_label("Name", exact=True)
        assert field.evaluate("el => el === document.activeElement")
        assert field.input_value() == "New gallery"
        # The actions are finger-sized.
        for button in ("button.cancel", "button[type=submit]"):
            assert box(dialog.locator(button))["height"] >= 44
        shot(page, "dialog-new-gallery-phone")

        # An empty name is refused in the dialog, next to the field.
        field.fill("   ")
        dialog.locator("button[type=submit]").tap()
        error = dialog.locator(".form-error")
        error.wait_for(state="visible")
        assert error.inner_text() == "Enter a name."
        assert field.get_attribute("aria-invalid") == "true"
        assert field.get_attribute("aria-describedby") == error.get_attribute("id")
        assert box(error)["y"] > box(field)["y"]
        shot(page, "dialog-new-gallery-invalid-phone")
        # Typing clears the message.
        field.fill("T")
        error.wait_for(state="hidden")

        # Esc cancels: nothing is made, the focus goes back to the ⋯ button.
        page.keyboard.press("Escape")
        dialog.wait_for(state="detached")
        assert len(server.api("GET", "/api/galleries")) == count
        assert page.evaluate("document.activeElement.id") == "more-open"

        # Again, with a name: created and opened.
        page.locator("#more-open").tap()
        page.locator("#gallery-new").tap()
        answer(page, "Trip to Lisbon").wait_for(state="detached")
        page.wait_for_function("app.model.name === 'Trip to Lisbon'")
        assert page.evaluate("document.getElementById('gallery-select').selectedOptions[0].textContent") == "Trip to Lisbon"
        assert page.evaluate("window.nativeAsked") == []
    finally:
        close_page(page)


def test_rename_and_delete_with_the_keyboard_on_a_desktop(browser, server):
    page = open_page(browser, server, **DESKTOP)
    try:
        page.evaluate(NO_NATIVE)
        name = page.evaluate("app.model.name")
        count = page.evaluate("app.model.count")
        menu_click(page, "#gallery-rename")
        dialog = page.locator("dialog.ask[open]")
        dialog.wait_for(state="visible")
        b = box(dialog)
        # Centred on a desktop.
        assert abs((b["x"] + b["width"] / 2) - 640) < 4 and abs((b["y"] + b["height"] / 2) - 400) < 40, b
        assert page.evaluate("document.activeElement.value") == name
        assert page.evaluate("document.activeElement.selectionStart === 0 && document.activeElement.selectionEnd === document.activeElement.value.length")
        shot(page, "dialog-rename-desktop")
        page.keyboard.type("Summer")
        page.keyboard.press("Enter")
        dialog.wait_for(state="detached")
        page.wait_for_function("app.model.name === 'Summer'")
        assert server.api("GET", f"/api/galleries/{page.evaluate('app.model.id')}")["gallery"]["name"] == "Summer"

        # Delete: says what goes; the danger button is named; Cancel (Tab to it) keeps the gallery.
        gallery = page.evaluate("app.model.id")
        menu_click(page, "#gallery-delete")
        dialog.wait_for(state="visible")
        assert dialog.locator("h2").inner_text() == "Delete “Summer”?"
        message = dialog.locator(".ask-message").inner_text()
        assert f"{count} photos" in message and "cannot be undone" in message
        assert page.evaluate("document.activeElement.textContent") == "Delete"
        assert dialog.locator("button[type=submit]").evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(201, 0, 27)"
        shot(page, "dialog-delete-desktop")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.textContent") == "Cancel"
        page.keyboard.press("Enter")
        dialog.wait_for(state="detached")
        assert any(g["id"] == gallery for g in server.api("GET", "/api/galleries"))

        menu_click(page, "#gallery-delete")
        answer(page).wait_for(state="detached")
        page.wait_for_function(f"app.model.id !== {gallery} && app.model.id != null")
        assert not any(g["id"] == gallery for g in server.api("GET", "/api/galleries"))
        assert page.evaluate("window.nativeAsked") == []
    finally:
        close_page(page)


def test_add_from_a_link_checks_the_link_in_the_dialog(browser, server):
    page = open_page(browser, server, **PHONE)
    try:
        page.evaluate(NO_NATIVE)
        requests = []
        page.on("request", lambda r: requests.append(r.url) if "/urls" in r.url else None)
        menu_click(page, "#add-url")
        dialog = page.locator("dialog.ask[open]")
        field = page.get_by_label("Link to an image")
        assert field.get_attribute("type") == "url"
        answer(page, "holiday photo")
        error = dialog.locator(".form-error")
        error.wait_for(state="visible")
        assert "not a link" in error.inner_text()
        answer(page, "ftp://example.com/a.jpg")
        page.wait_for_function("document.querySelector('dialog.ask .form-error').textContent.includes('Only http and https')")
        shot(page, "dialog-add-url-invalid-phone")
        assert requests == []
        dialog.locator("button.cancel").tap()
        dialog.wait_for(state="detached")
        assert page.evaluate("document.activeElement.id") == "add-open"
        assert page.evaluate("window.nativeAsked") == []
    finally:
        close_page(page)
