"""Issue 13, point 3: the detail view as a lightbox — arrow keys and swipes step, pinch,
double-tap, double-click and Ctrl+wheel zoom (on screen: the photo's box grows around the
point), Escape and the browser's back close it, Enter on a focused tile opens it and Space
still lifts it."""
from conftest import cell, close_page, open_page, shot, titles
from test_pinch import fingers

PHONE = dict(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)


def open_detail(page, title):
    cell(page, title).click()
    page.wait_for_selector("#detail:not([hidden])")
    page.wait_for_function("t => document.getElementById('detail-title').textContent.startsWith(t)", arg=title)
    page.wait_for_function("document.getElementById('detail-image').complete && document.getElementById('detail-image').naturalWidth > 0")


def shown(page):
    return page.locator("#detail-title").inner_text()


def image_box(page):
    return page.locator("#detail-image").bounding_box()


def settle(page):
    page.wait_for_function("document.getElementById('detail-image').getAnimations().length === 0")


def swipe(page, cdp, x0, x1, y):
    fingers(cdp, "touchStart", [(x0, y)])
    for k in range(1, 9):
        fingers(cdp, "touchMove", [(x0 + (x1 - x0) * k / 8, y)])
        page.wait_for_timeout(16)
    fingers(cdp, "touchEnd", [])


def test_arrow_keys_step_escape_closes_and_the_focus_returns_to_the_tile(page):
    order = titles(page, 0)
    open_detail(page, order[0])
    assert page.evaluate("document.activeElement.id") == "detail-back"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("t => document.getElementById('detail-title').textContent.startsWith(t)", arg=order[1])
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("t => document.getElementById('detail-title').textContent.startsWith(t)", arg=order[0])
    # Tab stays inside the lightbox (the page behind is inert).
    for _ in range(5):
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('detail').contains(document.activeElement)")
    assert page.evaluate("document.getElementById('main').inert")
    page.keyboard.press("Escape")
    page.wait_for_selector("#detail", state="hidden")
    assert "/item/" not in page.url
    assert page.evaluate("document.activeElement.id") == "scroller"


def test_enter_on_a_focused_tile_opens_it_and_space_still_lifts(page):
    page.focus("#scroller")
    page.wait_for_function("app.view.last.cells.some(c => c.kind === 'item' && (c.flags & 32))")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("app.model.items.get(app.view.last.cells.find(c => c.kind === 'item' && (c.flags & 32)).id).title === 'Banana'")
    page.keyboard.press("Enter")
    page.wait_for_selector("#detail:not([hidden])")
    assert shown(page).startswith("Banana")
    page.keyboard.press("Escape")
    page.wait_for_selector("#detail", state="hidden")
    page.keyboard.press(" ")
    page.wait_for_function("/Banana picked up/.test(document.getElementById('announcer').textContent)")
    page.wait_for_function("document.querySelectorAll('.cell.lifted:not([hidden])').length >= 1")
    page.keyboard.press("Escape")
    page.wait_for_function("app.view.last.phase === 'idle'")


def test_on_a_phone_a_swipe_steps_a_double_tap_and_a_pinch_zoom_and_back_closes(browser, server):
    page = open_page(browser, server, **PHONE)
    try:
        cdp = page.context.new_cdp_session(page)
        order = titles(page, 0)
        open_detail(page, order[0])
        y = 420
        swipe(page, cdp, 320, 80, y)                           # right to left: the next photo
        page.wait_for_function("t => document.getElementById('detail-title').textContent.startsWith(t)", arg=order[1])
        swipe(page, cdp, 80, 320, y)                           # left to right: back
        page.wait_for_function("t => document.getElementById('detail-title').textContent.startsWith(t)", arg=order[0])
        settle(page)
        before = image_box(page)
        # A double tap zooms in around the tap; another zooms back out.
        page.touchscreen.tap(195, y)
        page.wait_for_timeout(80)
        page.touchscreen.tap(195, y)
        page.wait_for_function("Number(document.getElementById('detail').dataset.zoom) > 2")
        settle(page)
        zoomed = image_box(page)
        assert zoomed["width"] > before["width"] * 2, (before, zoomed)
        # The tapped point stays under the finger (the centre of the photo here).
        assert abs((zoomed["x"] + zoomed["width"] / 2) - 195) < 20, zoomed
        shot(page, "lightbox-phone-zoomed")
        # Zoomed, a one-finger drag pans instead of stepping.
        swipe(page, cdp, 300, 150, y)
        assert shown(page).startswith(order[0])
        panned = image_box(page)
        assert panned["x"] < zoomed["x"] - 50, (zoomed, panned)
        page.touchscreen.tap(195, y)
        page.wait_for_timeout(80)
        page.touchscreen.tap(195, y)
        page.wait_for_function("Number(document.getElementById('detail').dataset.zoom) === 1")
        settle(page)
        # A two-finger pinch zooms with the fingers.
        fingers(cdp, "touchStart", [(165, y), (225, y)])
        for k in range(1, 9):
            d = 30 + 60 * k / 8
            fingers(cdp, "touchMove", [(195 - d, y), (195 + d, y)])
            page.wait_for_timeout(16)
        fingers(cdp, "touchEnd", [])
        zoom = page.evaluate("Number(document.getElementById('detail').dataset.zoom)")
        assert 2.5 < zoom < 3.5, zoom                           # the fingers went three times as far apart
        assert image_box(page)["width"] > before["width"] * 2.5
        shot(page, "lightbox-phone-pinched")
        page.go_back()                                          # the browser's back closes it
        page.wait_for_selector("#detail", state="hidden")
        assert "/item/" not in page.url
    finally:
        close_page(page)


def test_on_a_desktop_double_click_and_ctrl_wheel_zoom(page):
    order = titles(page, 0)
    open_detail(page, order[2])
    settle(page)
    before = image_box(page)
    cx, cy = before["x"] + before["width"] / 2, before["y"] + before["height"] / 2
    page.mouse.dblclick(cx, cy)
    page.wait_for_function("Number(document.getElementById('detail').dataset.zoom) > 2")
    settle(page)
    assert image_box(page)["width"] > before["width"] * 2
    page.keyboard.press("0")
    page.wait_for_function("Number(document.getElementById('detail').dataset.zoom) === 1")
    page.mouse.move(cx, cy)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    page.wait_for_function("Number(document.getElementById('detail').dataset.zoom) > 1.5")
    # Zoomed, the arrows pan and do not step.
    page.keyboard.press("ArrowRight")
    assert shown(page).startswith(order[2])
    shot(page, "lightbox-desktop-zoomed")
    page.keyboard.press("Escape")
    page.wait_for_selector("#detail", state="hidden")
