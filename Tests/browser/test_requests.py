"""Issue 11: one HTTP request per drop. A mouse drop sends its batch and nothing else — no
trash lookups before or after it, none when the live stream echoes our own change — and the
grid shows the new order."""
from conftest import center, mouse_drag, server_titles, titles, wait_changed, wait_idle, wait_server

RECORD_ECHO_JS = """() => {
  window.__echoes = [];
  const receive = app.live.receive.bind(app.live);
  app.live.receive = (e) => { try { window.__echoes.push(JSON.parse(e.data).toVersion ?? null); } catch { } return receive(e); };
}"""


def test_a_drop_costs_exactly_one_request_the_batch(page, server):
    page.evaluate(RECORD_ECHO_JS)
    requests = []
    page.on("request", lambda r: requests.append((r.method, r.url)) if "/api/" in r.url and "/api/images/" not in r.url and "/image/" not in r.url else None)
    before = titles(page, 0)
    version = page.evaluate("app.model.version")

    mouse_drag(page, center(page, "Apple"), center(page, "Date"))
    wait_idle(page)
    moved = wait_changed(page, [before, titles(page, 1)])[0]
    assert moved != before and moved.index("Apple") > 0
    wait_server(server, moved, 0)
    # The server's answer applied and the live stream's echo of the same version received.
    page.wait_for_function("v => app.model.version === v + 1 && window.__echoes.includes(v + 1)", arg=version, timeout=5000)
    assert server_titles(server)[0] == moved

    batch = [r for r in requests if r[0] == "POST" and r[1].endswith("/batch")]
    assert len(batch) == 1, requests
    assert requests == batch, f"a drop sent more than its batch: {requests}"
    # The trash count is still right (nothing went to the trash).
    assert page.locator("#trash-count").inner_text() == "0"


def test_the_gallery_arrives_zstd_compressed_and_the_grid_shows_it(page, server):
    """Issue 15: the columns body (the first load, in its binary form) is sent zstd-compressed to Chromium, which
    takes zstd (faster to decode than gzip); the grid built from it shows the gallery. The server compresses each
    version once in the background, so a reload gets it once that is done."""
    gallery = page.evaluate("app.model.id")
    expected = server_titles(server)[0]
    encoding = None
    for _ in range(50):
        with page.expect_response(lambda r: r.url.endswith(f"/api/galleries/{gallery}/columns?format=binary")) as info:
            page.reload()
        encoding = info.value.headers.get("content-encoding")
        if encoding == "zstd":
            break
        page.wait_for_timeout(100)
    assert encoding == "zstd"
    page.wait_for_selector("body[data-ready='1']")
    assert titles(page, 0) == expected
