"""Issue 12: the detail view tells when, with what and where a photo was taken; a share link
that hides metadata shows its size only."""
import base64
import subprocess
import tempfile
from pathlib import Path

from conftest import cell, center, new_page, shot, titles, wait_idle
from test_external_drops import DROP_JS
from test_orientation import wide_jpeg


def camera_jpeg(server):
    jpeg, _ = wide_jpeg(server)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "photo.jpg"
        path.write_bytes(jpeg)
        subprocess.run(["exiftool", "-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS R6",
                        "-LensModel=RF24-105mm F4 L IS USM", "-ExposureTime=1/125", "-FNumber=5.6", "-ISO=400",
                        "-FocalLength=50", "-DateTimeOriginal=2024:06:01 18:30:05", "-OffsetTimeOriginal=+02:00",
                        "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", str(path)], check=True)
        return path.read_bytes()


def meta_text(page):
    page.wait_for_selector("#detail-meta:not([hidden])")
    return {row.locator("dt").inner_text(): row.locator("dd").inner_text() for row in page.locator("#detail-meta > div").all()}


def test_the_detail_view_shows_when_with_what_and_where(page, server):
    before = titles(page, 0)
    x, y = center(page, before[0])
    page.evaluate(DROP_JS, [x, y, [], [{"name": "IMG_1234.JPG", "type": "image/jpeg", "data": base64.b64encode(camera_jpeg(server)).decode()}]])
    page.wait_for_function("n => app.sections({confirmed: true})[0].items.length === n + 1 && app.sections({confirmed: true})[0].items.every(i => i.state === 'ready')",
                           arg=len(before), timeout=15000)
    wait_idle(page)
    cell(page, "IMG_1234.JPG").click()
    page.wait_for_selector("#detail:not([hidden])")
    meta = meta_text(page)
    assert meta["Taken"] == "1 June 2024, 18:30 (UTC+02:00)", meta
    assert meta["Camera"] == "Canon EOS R6"
    assert meta["Lens"] == "RF24-105mm F4 L IS USM"
    assert meta["Exposure"] == "1/125 s · f/5.6 · ISO 400 · 50 mm"
    assert meta["Size"].split(" · ")[0].count("×") == 1
    assert meta["Place"] == "48.8584, 2.2945"
    # On screen, under the picture.
    image = page.locator("#detail-image").bounding_box()
    listing = page.locator("#detail-meta").bounding_box()
    assert listing["y"] >= image["y"] + image["height"] - 1 and listing["height"] > 0
    shot(page, "detail-metadata")

    # A share link that hides metadata: the visitor sees the size, not the camera or the place.
    gallery = page.evaluate("app.model.id")
    link = server.api("POST", f"/api/galleries/{gallery}/links", {"role": "viewer", "allowDownload": False, "showMetadata": False})
    visitor = new_page(browser=page.context.browser, server=server, user=False)
    try:
        visitor.goto(server.url + link["url"])
        visitor.wait_for_selector("body[data-ready='1']", timeout=20000)
        cell(visitor, "IMG_1234.JPG").click()
        visitor.wait_for_selector("#detail:not([hidden])")
        hidden = meta_text(visitor)
        assert set(hidden) == {"Size"}, hidden
        assert "Canon" not in visitor.locator("#detail").inner_text() and "48.8" not in visitor.locator("#detail").inner_text()
        shot(visitor, "detail-metadata-hidden")
    finally:
        visitor.context.close()
