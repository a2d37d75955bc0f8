"""Issue 12: `gallery import FOLDER` while the server runs sends the files through its API, so a
window open on the gallery sees them arrive, thumbnails and all, without reloading."""
import subprocess
import tempfile
from pathlib import Path

from conftest import GALLERY, ROOT, close_page, open_page, shot, wait_images, wait_until


def test_a_folder_imported_from_the_command_line_arrives_live_in_an_open_window(browser, server):
    page = open_page(browser, server)
    try:
        gallery = page.evaluate("app.model.id")
        page.evaluate("window.notReloaded = true")
        folder = Path(tempfile.mkdtemp(prefix="import-live-"))
        names = ["Harbour.png", "Lighthouse.png", "Pier.png"]
        for i, name in enumerate(names):   # three different images (sizes differ, so contents do)
            subprocess.run(["vips", "black", str(folder / name), str(300 + 40 * i), "200", "--bands", "3"], check=True)
        run = subprocess.run([str(GALLERY), "import", str(folder), "--data", server.data, "--gallery", str(gallery)],
                             capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
        assert f"sending through the server at {server.url}" in run.stdout, run.stdout
        assert "added 3, skipped 0, failed 0" in run.stdout, run.stdout

        # The three tiles arrive in this window (live), at the end of the last section, in name order.
        wait_until(page, "(names) => names.every((n) => app.sections({confirmed: true}).at(-1).items.some((i) => i.title === n))", names)
        page.mouse.move(600, 400)
        page.mouse.wheel(0, 20000)
        wait_until(page, """(names) => names.every((n) => {
            const c = document.querySelector(`.cell[aria-label="${n}"]:not(.preview)`);
            const r = c?.getBoundingClientRect();
            return r && r.width > 0 && r.bottom > 0 && r.top < innerHeight;
        })""", names, timeout=20000)
        wait_images(page)
        assert page.evaluate("app.sections({confirmed: true}).at(-1).items.slice(-3).map((i) => i.title)") == names
        # Sized and thumbnailed by the server (its workers), not by the import.
        stored = {i["title"]: i for s in server.api("GET", f"/api/galleries/{gallery}")["sections"] for i in s["items"]}
        assert [stored[n]["state"] for n in names] == ["ready"] * 3
        assert [stored[n]["width"] for n in names] == [300, 340, 380]
        assert page.evaluate("window.notReloaded") is True
        shot(page, "import-live")
    finally:
        close_page(page)
