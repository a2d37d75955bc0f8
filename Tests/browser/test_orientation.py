"""Issue 12: a portrait phone photo (stored landscape, EXIF orientation 6) dropped on the page
takes a portrait cell, and its tile shows the picture upright."""
import base64
import subprocess
import tempfile
from pathlib import Path

from conftest import cell, center, shot, titles, wait_idle, wait_images
from test_external_drops import DROP_JS


def wide_jpeg(server):
    """A landscape picture of the sample gallery (its grid thumbnail: a plain JPEG, no EXIF)."""
    gallery = server.api("GET", "/api/galleries")[0]["id"]
    snap = server.api("GET", f"/api/galleries/{gallery}")
    wide = next(i for s in snap["sections"] for i in s["items"] if i["aspect"] >= 1.3)
    return server.fetch(wide["thumbnails"]["grid"])[0], wide["aspect"]


def tagged(jpeg, orientation):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "photo.jpg"
        path.write_bytes(jpeg)
        subprocess.run(["exiftool", "-q", "-n", "-overwrite_original", f"-Orientation={orientation}", str(path)], check=True)
        return path.read_bytes()


def test_a_portrait_phone_photo_gets_a_portrait_cell(page, server):
    jpeg, aspect = wide_jpeg(server)
    files = [{"name": "landscape.jpg", "type": "image/jpeg", "data": base64.b64encode(tagged(jpeg, 1)).decode()},
             {"name": "IMG_PORTRAIT.jpg", "type": "image/jpeg", "data": base64.b64encode(tagged(jpeg, 6)).decode()}]
    before = titles(page, 0)
    x, y = center(page, before[0])
    page.evaluate(DROP_JS, [x, y, [], files])
    page.wait_for_function(
        "n => app.sections({confirmed: true})[0].items.length === n + 2 && app.sections({confirmed: true})[0].items.every(i => i.state === 'ready')",
        arg=len(before), timeout=15000)
    wait_idle(page)
    wait_images(page)
    landscape = cell(page, "landscape.jpg").bounding_box()
    portrait = cell(page, "IMG_PORTRAIT.jpg").bounding_box()
    # Same file, same column width: the landscape cell is wide, the portrait one tall by the inverse ratio.
    assert landscape["width"] / landscape["height"] > 1.2, landscape
    assert portrait["height"] / portrait["width"] > 1.2, portrait
    assert abs(portrait["height"] / portrait["width"] - landscape["width"] / landscape["height"]) < 0.15
    # The tile's image fills the cell upright: its natural size is portrait too.
    natural = cell(page, "IMG_PORTRAIT.jpg").locator("img").evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert natural[1] > natural[0], natural
    shot(page, "orientation-portrait-cell")
