"""F2: click a tile to open its detail view; back returns to the grid."""
from conftest import cell, shot, titles


def open_detail_of(page, title):
    cell(page, title).click()
    page.wait_for_selector("#detail:not([hidden])")
    assert page.locator("#detail-title").inner_text().startswith(title)
    assert "/item/" in page.url
    page.wait_for_function("document.getElementById('detail-image').complete && document.getElementById('detail-image').naturalWidth > 0")


def test_clicking_banana_opens_its_detail_and_the_back_button_returns_to_the_grid(page):
    before = titles(page)
    open_detail_of(page, "Banana")
    shot(page, "detail-banana")
    page.click("#detail-back")
    page.wait_for_selector("#detail", state="hidden")
    assert "/item/" not in page.url
    assert cell(page, "Banana").is_visible()
    assert titles(page) == before  # a click is not a drag: nothing moved


def test_browser_back_closes_the_detail_view(page):
    open_detail_of(page, "Cherry")
    page.go_back()
    page.wait_for_selector("#detail", state="hidden")
    assert "/item/" not in page.url
    # And forward opens it again: the detail view has its own address.
    page.go_forward()
    page.wait_for_selector("#detail:not([hidden])")
    assert page.locator("#detail-title").inner_text().startswith("Cherry")


def test_next_in_the_detail_view_shows_the_following_item(page):
    order = titles(page, 0)
    open_detail_of(page, order[0])
    page.click("#detail-next")
    page.wait_for_function("t => document.getElementById('detail-title').textContent.startsWith(t)", arg=order[1])
