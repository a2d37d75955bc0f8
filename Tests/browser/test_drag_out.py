"""F5, F17: a tile dragged out of the page carries the image for other apps (a URL list, an
<img> for pages, a file download) and the app's own JSON payload for other gallery windows;
dropped into another window's gallery, the items are copied there."""
import json

from conftest import center, drop_data, item_id, new_page, open_page, shot, wait_images

DRAGSTART_JS = """([x, y]) => {
  const dt = new DataTransfer();
  const target = document.elementFromPoint(x, y);
  target.dispatchEvent(new DragEvent('dragstart', { bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: dt }));
  const out = {};
  for (const t of dt.types) out[t] = dt.getData(t);
  target.dispatchEvent(new DragEvent('dragend', { bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: dt }));
  return out;
}"""

def test_a_dragged_tile_carries_its_image_and_json_and_another_window_copies_it(browser, strict_server):
    # As `gallery serve` runs by default: fetches of private addresses (this server's own) are refused.
    server = strict_server
    page = open_page(browser, server)
    try:
        x, y = center(page, "Cherry")
        data = page.evaluate(DRAGSTART_JS, [x, y])
        assert set(data) >= {"application/x-drag-gallery+json", "text/uri-list", "text/html"}, data.keys()
        payload = json.loads(data["application/x-drag-gallery+json"])
        cherry = item_id(page, "Cherry")
        assert payload["items"][0]["id"] == cherry and payload["items"][0]["title"] == "Cherry"
        url = payload["items"][0]["url"]
        assert url.startswith(f"{server.url}/api/items/{cherry}/image/original?v="), url
        assert data["text/uri-list"].strip() == url
        assert f'src="{url}"' in data["text/html"] and 'alt="Cherry"' in data["text/html"]
        # The URL serves the original image.
        _, kind = server.fetch(url)
        assert kind.startswith("image/")

        # A second window on a new, empty gallery receives the drop: Cherry is copied there.
        other = server.api("POST", "/api/galleries", {"name": "Elsewhere"})
        second_errors = []
        second = new_page(browser, server, second_errors, viewport={"width": 1000, "height": 700})
        second.goto(f"{server.url}/#/g/{other['id']}")
        second.wait_for_selector("body[data-ready='1']")
        box = second.locator("#scroller").bounding_box()
        drop_data(second, box["x"] + 200, box["y"] + 150, data)
        second.wait_for_function("app.model.count === 1 && [...app.model.items.values()][0].state === 'ready'", timeout=15000)
        wait_images(second)
        snap = server.api("GET", f"/api/galleries/{other['id']}")
        copied = snap["sections"][0]["items"]
        assert len(copied) == 1 and copied[0]["state"] == "ready" and copied[0]["title"] == "Cherry"
        second.wait_for_function("document.querySelector('#gallery-select option:checked').textContent === 'Elsewhere (1)'")
        original = server.api("GET", f"/api/items/{cherry}")
        assert copied[0]["fileHash"] == original["fileHash"]
        # The first gallery still has its Cherry: the drop between windows copies.
        assert item_id(page, "Cherry") == cherry
        shot(second, "drag-out-copied-into-another-gallery")
        assert not second_errors, second_errors
        second.context.close()
    finally:
        page.context.close()
