"""Browser tests: the real server (release build of `gallery`) on a free port with a fresh
data folder, driven by Playwright in Debian's chromium-headless-shell (`GALLERY_TEST_BROWSER=full`:
the whole chromium, headless). Screenshots go to artifacts/.

Every test is signed in (issue 10): the admin account is made with `gallery user add` before
the server starts; browser contexts sign in through POST /api/login, and `Server.api()`
sends the session cookie and the page's Origin as the page does. The usual server's data folder
is a copy of a template with the admin's sessions already made (each a real POST /api/login
when the template was made): the fixture's client and each admin browser context take one of
their own, so a test does not pay for bcrypt at -Onone (~0.6 s of CPU a sign-in) twice. Every page fails its test
on a Content-Security-Policy violation."""
import atexit
import http.cookiejar
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
GALLERY = Path(os.environ.get("GALLERY_BIN", ROOT / ".build" / "release" / "gallery"))
ADMIN = ("ana", "correct horse battery staple")
# Debian's chromium-headless-shell: the same Chromium (Blink, V8) without the whole browser's UI
# processes, which Playwright itself runs for headless tests; the stage takes 5.5 min in it
# against 8 in the whole browser headless on two cores. GALLERY_TEST_BROWSER=full: Debian's chromium.
BROWSER = "chromium" if os.environ.get("GALLERY_TEST_BROWSER") == "full" else "chromium-headless-shell"

# The page runs as one bundle built from Web/js (scripts/bundle-page.py, normally by
# scripts/build-wasm.sh): rebuilt here, so the tests always run the page as it is in Web/js.
if (ROOT / ".build-wasm" / "protocol.js").exists():
    subprocess.run(["python3", str(ROOT / "scripts" / "bundle-page.py")], check=True, capture_output=True, cwd=ROOT)

# Records CSP violations in the page (a test fails on any: the server's policy allows no
# inline script or style).
CSP_GUARD = """document.addEventListener('securitypolicyviolation', (e) => {
  console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile ?? ''}:${e.lineNumber ?? ''}`);
});"""
_PAGES = []  # every page new_page made in the running test: checked for CSP violations at its end


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, allow_private=True, admin=ADMIN, database=None, data=None, args=()):
        """`database`: a postgres:// URL (`--database`); `data`: another server's data folder
        (a second instance on the same database and images: its admin exists already); `args`:
        more options of `gallery serve`."""
        self.args = list(args)
        self.allow_private = allow_private
        self.database = database
        self.port = free_port()
        shared = data is not None
        self.data = data or tempfile.mkdtemp(prefix="gallery-test-")
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.admin = admin
        self.cookies = http.cookiejar.CookieJar()
        # Admin sessions made with the template (cookies): the first is this client's, the rest
        # go to browser contexts signed in as the admin (`login`), one each.
        self.session = None
        self.spare_sessions = []
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        if admin == ADMIN and not shared and not database:
            # The usual start (the admin, then the sample gallery the first start makes) copied
            # from a data folder made once per test process: ~1.6 s of CPU less per test.
            template, sessions = _template_data()
            shutil.copytree(template, self.data, dirs_exist_ok=True)
            self.session, *self.spare_sessions = sessions
        elif admin and not shared:
            self.add_user(*admin, admin=True)

    def add_user(self, name, password, admin=False):
        """`gallery user add` on the data folder (the server may be running)."""
        subprocess.run([str(GALLERY), "user", "add", name, *(["--admin"] if admin else []), "--password-stdin", "--data", self.data,
                        *(["--database", self.database] if self.database else [])],
                       input=password.encode() + b"\n", check=True, capture_output=True, cwd=ROOT, timeout=60)

    def log(self):
        return (Path(self.data) / "server.log").read_text(errors="replace")

    def start(self):
        log = open(Path(self.data) / "server.log", "ab")
        self.proc = subprocess.Popen(
            [str(GALLERY), "serve", "--port", str(self.port), "--data", self.data,
             "--web", str(ROOT / "Web"), "--wasm", str(ROOT / ".build-wasm" / "engine.wasm"),
             *(["--allow-private-addresses"] if self.allow_private else []),
             *(["--database", self.database] if self.database else []), *self.args],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/session", timeout=1) as r:
                    if r.status == 200:
                        if self.admin and not self.resume_session():
                            self.login(*self.admin)
                        return self
            except Exception:
                time.sleep(0.2)
        raise RuntimeError("server did not start: " + (Path(self.data) / "server.log").read_text()[-2000:])

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def restart(self):
        self.stop()
        return self.start()

    def login(self, name, password):
        """Signs this client (`api`, `fetch`) in as `name`."""
        self.cookies.clear()
        return self.api("POST", "/api/login", {"name": name, "password": password})

    def resume_session(self):
        """Signs this client in with the template's session of the admin, if it has one that
        still works (a test may have ended it): whether it did."""
        if not self.session:
            return False
        self.cookies.clear()
        self.cookies.set_cookie(self.session)
        return (self.api("GET", "/api/session").get("user") or {}).get("name") == self.admin[0]

    def new_session(self, name, password):
        """A session of its own (POST /api/login): its cookie."""
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        req = urllib.request.Request(self.url + "/api/login", data=json.dumps({"name": name, "password": password}).encode(),
                                     method="POST", headers={"Origin": self.url, "content-type": "application/json"})
        opener.open(req, timeout=10).close()
        return next(c for c in jar if c.name == "gallery_session")

    def request(self, method, path, body=None, headers=None):
        """A request as the page sends it (session cookie, Origin); answers the response."""
        data = json.dumps(body).encode() if body is not None else None
        h = {"Origin": self.url, **({"content-type": "application/json"} if data else {}), **(headers or {})}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        return self.opener.open(req, timeout=10)

    def api(self, method, path, body=None):
        with self.request(method, path, body) as r:
            text = r.read()
            return json.loads(text) if text else None

    def fetch(self, path):
        """The bytes and content type at `path` (an image, a zip), signed in."""
        with self.request("GET", path if path.startswith("/") else path.removeprefix(self.url)) as r:
            return r.read(), r.headers["content-type"]


_TEMPLATE = []
# Admin sessions in the template: the fixture's client and up to this many less one browser
# contexts per test (a test with more signs the others in with POST /api/login).
TEMPLATE_SESSIONS = 6


def _template_data():
    """A data folder as a fresh one is after `gallery user add` of ADMIN and the server's first
    start (which makes the sample gallery, its items ready), the server stopped again; and the
    cookies of TEMPLATE_SESSIONS sessions of the admin made meanwhile."""
    if not _TEMPLATE:
        t = Server(admin=None)
        t.add_user(*ADMIN, admin=True)
        t.start()  # answers once the sample gallery is made: its items are ready from the start
        sessions = [t.new_session(*ADMIN) for _ in range(TEMPLATE_SESSIONS)]
        t.stop()
        for leftover in ("server.json", "server.log"):
            (Path(t.data) / leftover).unlink(missing_ok=True)
        atexit.register(shutil.rmtree, t.data, True)
        _TEMPLATE.append((t.data, sessions))
    return _TEMPLATE[0]


@pytest.fixture
def server():
    s = Server().start()
    yield s
    s.stop()
    shutil.rmtree(s.data, ignore_errors=True)


@pytest.fixture
def strict_server():
    """A server with the default refusal of private addresses (as `gallery serve` runs)."""
    s = Server(allow_private=False).start()
    yield s
    s.stop()
    shutil.rmtree(s.data, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which(BROWSER), args=["--no-sandbox"])
        yield b
        b.close()


def login(context, server, name=None, password=None):
    """Signs a browser context in: as the admin with one of the template's sessions while the
    server has one left, else as the page's sign-in form would (POST /api/login)."""
    if not name and server.spare_sessions:
        cookie = server.spare_sessions.pop(0)
        context.add_cookies([{"name": cookie.name, "value": cookie.value, "url": server.url, "httpOnly": True, "sameSite": "Lax"}])
        return
    name, password = (name, password) if name else server.admin
    r = context.request.post(server.url + "/api/login", data={"name": name, "password": password},
                             headers={"Origin": server.url})
    assert r.ok, f"login as {name} failed: {r.status} {r.text()}"


def new_page(browser, server, errors=None, user=None, **context_options):
    """A fresh context (signed in as `user`, (name, password), else the admin; `user=False`:
    not signed in) and a page in it, guarded against CSP violations and uncaught errors."""
    options = {"viewport": {"width": 1200, "height": 800}, **context_options}
    context = browser.new_context(**options)
    if user is not False:
        login(context, server, *(user or (None, None)))
    context.add_init_script(CSP_GUARD)
    pg = context.new_page()
    pg.set_default_timeout(10000)
    pg.errors = [] if errors is None else errors
    pg.on("pageerror", lambda e: (print("page error:", e), pg.errors.append(str(e))))
    pg.csp = []
    pg.on("console", lambda m: pg.csp.append(m.text) if m.text.startswith("CSP violation") else None)
    _PAGES.append(pg)
    pg.wait_for_function = lambda expression, **kw: wait_until(pg, expression, **kw)
    return pg


def wait_until(page, expression, arg=None, timeout=10000, polling=16):
    """Playwright's wait_for_function evaluates its predicate with eval() in the page, which
    the page's CSP (script-src without 'unsafe-eval') refuses; this polls with evaluate(),
    which the CSP does not govern. Answers the first truthy value."""
    src = expression.strip()
    if not (src.startswith(("(", "async ", "function")) or src.split("=>")[0].strip().isidentifier()):
        src = f"() => ({src})"
    deadline = time.time() + (timeout or 10000) / 1000
    step = polling if isinstance(polling, (int, float)) else 16
    while True:
        try:
            value = page.evaluate(src, arg)
        except Exception as e:
            if "Execution context was destroyed" not in str(e) and "navigat" not in str(e):
                raise
            value = None
        if value:
            return value
        if time.time() > deadline:
            raise PlaywrightTimeoutError(f"timed out after {timeout} ms waiting for {expression!r}")
        page.wait_for_timeout(step)


@pytest.fixture(autouse=True)
def no_csp_violations_or_page_errors():
    """Fails a test whose pages broke the Content-Security-Policy (an inline script or style)
    or threw an uncaught error, whether or not the test closed its page through close_page."""
    _PAGES.clear()
    yield
    seen = [v for pg in _PAGES for v in pg.csp]
    errors = [e for pg in _PAGES for e in pg.errors]
    _PAGES.clear()
    assert not seen, f"Content-Security-Policy violations: {seen}"
    assert not errors, f"uncaught errors in the page: {errors}"


def open_page(browser, server, errors=None, path="/", **context_options):
    """A fresh signed-in context and page on the server's first gallery, loaded and ready."""
    pg = new_page(browser, server, errors, **context_options)
    pg.goto(server.url + path)
    pg.wait_for_selector("body[data-ready='1']", timeout=20000)
    wait_images(pg)
    return pg


def close_page(page):
    """Closes a page's context; fails on uncaught errors seen in it."""
    errors = list(page.errors)
    page.context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


@pytest.fixture
def page(browser, server):
    pg = open_page(browser, server)
    yield pg
    close_page(pg)


# ---- helpers the tests share: they read the page's state the way a user sees it

def titles(page, section=None):
    """Item titles in order, per section (a list of lists), as the page's engine holds them once
    no batch of ours is on its way (the arrangement the server confirmed)."""
    t = page.evaluate("app.sections({confirmed: true}).map(s => s.items.map(i => i.title))")
    return t if section is None else t[section]


def server_titles(server, gallery=None):
    """Item titles per section as the server has them now."""
    return [[i["title"] for i in s] for s in server_items(server, gallery)]


def server_ids(server, gallery=None):
    """Item ids per section as the server has them now."""
    return [[i["id"] for i in s] for s in server_items(server, gallery)]


def server_items(server, gallery=None):
    if gallery is None:
        gallery = server.api("GET", "/api/galleries")[0]["id"]
    snap = server.api("GET", f"/api/galleries/{gallery}")
    return [s["items"] for s in snap["sections"]]


def wait_server(server, expected, section=None, timeout=5.0):
    """Waits until the server has `expected` (all sections' titles, or one section's); a
    condition, not a pause: the page's request may still be on its way."""
    deadline = time.time() + timeout
    while True:
        now = server_titles(server)
        now = now if section is None else now[section]
        if now == expected:
            return now
        if time.time() > deadline:
            raise AssertionError(f"the server has {now}, expected {expected}")
        time.sleep(0.03)


def item_id(page, title):
    return page.evaluate("t => [...app.model.items.values()].find(i => i.title === t)?.id", title)


def cell(page, title):
    """The visible grid cell (not a preview or ghost) showing `title`."""
    return page.locator(f".cell:not(.preview):not([hidden])[aria-label='{title}']").first


def center(page, title):
    box = cell(page, title).bounding_box()
    assert box, f"no visible cell for {title}"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    view = page.viewport_size
    assert 0 <= x < view["width"] and 0 <= y < view["height"], f"{title} is off screen at {x}, {y}"
    return x, y


def wait_idle(page, timeout=5000):
    """Waits until the engine's drag phase is idle and the batch queue is drained."""
    page.wait_for_function("app.view.last && app.view.last.phase === 'idle'", timeout=timeout, polling=50)
    page.evaluate("app.drag ? new Promise(r => setTimeout(r, 50)) : null")


def wait_images(page, timeout=10000):
    """Waits until every visible cell that should show an image shows it (no spinner, no image
    load waiting or under way: pool.js marks those cells `data-loading`)."""
    page.wait_for_function(
        "[...document.querySelectorAll('.cell:not([hidden])')].every(c => !c.querySelector('.spinner') && !c.hasAttribute('data-loading'))",
        timeout=timeout)


# Records where the page last answered a dragover and whether it accepted it (a listener on
# window in the bubble phase runs after the page's own, on document).
WATCH_DRAGOVER_JS = """() => { if (window.__watchingDragover) return; window.__watchingDragover = true;
  window.addEventListener('dragover', (e) => { window.__lastDragover = { x: e.clientX, y: e.clientY, accepted: e.defaultPrevented }; }); }"""


def mouse_lift_along(page, start, end, steps=12, wait_ms=16, nudge=8):
    """With the mouse already down at `start`: a first small move lifts the item (the engine lifts
    after 4 pt), then the way to `end` in `steps` moves, one every `wait_ms`. The button stays down."""
    x0, y0 = start
    x1, y1 = end
    page.mouse.move(x0 + nudge, y0 + nudge, steps=2)
    for i in range(1, steps + 1):
        page.mouse.move(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
        page.wait_for_timeout(wait_ms)


def touch_points(cdp, kind, *points):
    """One CDP touch event; points: (id, x, y) for the fingers still down (none for a touchEnd of the last)."""
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
        {"x": x, "y": y, "id": i, "radiusX": 4, "radiusY": 4, "force": 1} for i, x, y in points]})


def mouse_drag(page, start, end, steps=12, hold_keys=(), before_drop=None, pause=True):
    """A real HTML5 drag with the mouse from `start` to `end` (page coordinates). Before the
    drop it waits until the page has answered a dragover at `end` (with `pause=False` it drops
    at once, as a quick hand does)."""
    page.evaluate(WATCH_DRAGOVER_JS)
    page.mouse.move(*start)
    page.mouse.down()
    for k in hold_keys:
        page.keyboard.down(k)
    x1, y1 = end
    mouse_lift_along(page, start, end, steps=steps, nudge=6)
    # Let the last dragover's answer reach the browser before the drop.
    if pause:
        # Chromium may not turn the last moves into dragover events at once; small moves on the
        # spot (as a hand that holds still makes) until the page has answered one there.
        answered = "([x, y]) => { const o = window.__lastDragover; return !!o && Math.abs(o.x - x) < 1.5 && Math.abs(o.y - y) < 1.5; }"
        deadline = time.time() + 5
        k = 0
        while not page.evaluate(answered, [x1, y1]):
            if time.time() > deadline:
                raise AssertionError(f"no dragover answered at {x1}, {y1}: last {page.evaluate('window.__lastDragover')}")
            k += 1
            page.mouse.move(x1 + (k % 2) * 0.5, y1)
            page.wait_for_timeout(16)
    if before_drop:
        before_drop()
    page.mouse.up()
    for k in hold_keys:
        page.keyboard.up(k)


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def wait_titles(page, expected, section=0, timeout=5000):
    """Waits until section `section` shows exactly `expected` (titles, in order)."""
    try:
        page.wait_for_function(
            "([s, e]) => JSON.stringify(app.sections({confirmed: true})[s].items.map(i => i.title)) === JSON.stringify(e)",
            arg=[section, expected], timeout=timeout, polling=50)
    except Exception:
        raise AssertionError(f"section {section} is {titles(page, section)}, expected {expected}")
    wait_screen(page, expected, section, timeout)


def wait_changed(page, before, timeout=5000):
    """Waits until the arrangement (all sections' titles) differs from `before`; answers it."""
    page.wait_for_function(
        "b => JSON.stringify(app.sections({confirmed: true}).map(s => s.items.map(i => i.title))) !== JSON.stringify(b)",
        arg=before, timeout=timeout, polling=50)
    after = titles(page)
    for k, expected in enumerate(after):
        wait_screen(page, expected, k, timeout)
    return after


# The visible grid as the user sees it: every item cell on screen (not the floating preview,
# not a recycled hidden element) with its on-screen box, its section (data-section), its
# transform and opacity, in reading order: sections in order, then by top, then by left
# (cells whose tops are within 1 px share a row). That is the gallery's order in every
# layout: a justified or square grid fills rows left to right, and the waterfall puts each
# next item at the top of the shortest column, so its tops never decrease (ties: leftmost).
# `settled`: no CSS transition or animation is running on any grid cell.
SCREEN_JS = """() => {
  const scroller = document.getElementById('scroller').getBoundingClientRect();
  const cells = [...document.querySelectorAll('.cell:not(.preview):not([hidden])')].map((el) => {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return { title: el.getAttribute('aria-label'), section: Number(el.dataset.section ?? 0),
             x: r.left, y: r.top, w: r.width, h: r.height, transform: cs.transform, opacity: Number(cs.opacity),
             ghost: el.classList.contains('ghost'), lifted: el.classList.contains('lifted'),
             target: el.classList.contains('target'),
             onScreen: r.bottom > scroller.top && r.top < scroller.bottom && r.right > scroller.left && r.left < scroller.right };
  });
  cells.sort((a, b) => a.section - b.section || (Math.abs(a.y - b.y) < 1 ? a.x - b.x : a.y - b.y));
  const settled = [...document.querySelectorAll('.cell:not([hidden])')].every((el) => el.getAnimations().length === 0);
  // The item cells the engine chose to draw (those near the viewport), by section.
  const chosen = (app.view.last?.cells ?? []).filter((c) => c.kind === 'item')
    .map((c) => ({ section: c.section, title: app.model.items.get(c.id)?.title }));
  return { cells, settled, chosen };
}"""


def screen(page):
    """The visible grid now: {'cells': [...], 'settled': bool} (see SCREEN_JS)."""
    return page.evaluate(SCREEN_JS)


def screen_titles(page, section=None):
    """Titles of the drawn cells in reading order, per section (a list of lists, sections
    with no drawn cell are empty), or of one section."""
    cells = screen(page)["cells"]
    count = max([c["section"] for c in cells] + [len(titles(page)) - 1]) + 1
    out = [[] for _ in range(count)]
    for c in cells:
        out[c["section"]].append(c["title"])
    return out if section is None else out[section]


def _drawn_in_order(drawn, chosen, expected):
    """True when the page draws exactly the cells the engine chose to draw (all of them, for a
    small gallery; those near the viewport for a large one), in the order of
    `expected` restricted to them."""
    if sorted(drawn) != sorted(chosen):
        return False
    shown = set(drawn)
    return [t for t in expected if t in shown] == drawn and shown <= set(expected)


def wait_screen(page, expected, section=0, timeout=5000):
    """Waits until the grid has settled (no cell moving) and section `section` is drawn in the
    order `expected` (titles) — what the user sees, not the page's model."""
    deadline = time.time() + timeout / 1000
    while True:
        s = screen(page)
        drawn = [c["title"] for c in s["cells"] if c["section"] == section]
        chosen = [c["title"] for c in s["chosen"] if c["section"] == section]
        if s["settled"] and _drawn_in_order(drawn, chosen, expected):
            return s
        if time.time() > deadline:
            raise AssertionError(f"section {section} is drawn as {drawn} (settled: {s['settled']}), expected {expected}")
        page.wait_for_timeout(30)


# Chromium ignores writes to dropEffect on a DataTransfer made by script; this one records
# them, so a simulated drop sees the page's answer to dragover as a browser would.
ANSWERING_DATA_TRANSFER_JS = """const dt = new DataTransfer();
  let answer = 'none';
  Object.defineProperty(dt, 'dropEffect', { get: () => answer, set: (v) => { answer = v; } });"""

DATA_DROP_JS = """async ([x, y, data]) => {
  """ + ANSWERING_DATA_TRANSFER_JS + """
  for (const [t, v] of Object.entries(data)) dt.setData(t, v);
  const target = document.elementFromPoint(x, y);
  const fire = (type) => target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: dt }));
  fire('dragenter');
  let accepted = false;
  // The browser resets the drop effect to its default ('copy' for a drag from another app)
  // before each dragover; the page may change it.
  for (let i = 0; i < 4; i++) { dt.dropEffect = 'copy'; accepted = !fire('dragover'); await new Promise((r) => setTimeout(r, 30)); }
  // As a browser does: the drop fires only where the last dragover was accepted
  // (preventDefault) with a drop effect other than 'none'; otherwise the drag is cancelled.
  const effect = dt.dropEffect;
  if (!accepted || effect === 'none') { fire('dragleave'); return { dropped: false, accepted, effect }; }
  fire('drop');
  return { dropped: true, accepted, effect };
}"""


def drop_data(page, x, y, data, expect_drop=True):
    """Drops what another app or window would offer, as {type: string} (text/html, the app's JSON…).
    The drop happens only if the page accepted the last dragover (as in a browser); with
    `expect_drop` the test fails when it did not. Answers {dropped, accepted, effect}."""
    answer = page.evaluate(DATA_DROP_JS, [x, y, data])
    if expect_drop:
        assert answer["dropped"], f"the page refused the drop at {x}, {y}: {answer}"
    return answer


def view_setting(page, selector, value):
    """Sets a control of the view sheet (layout, snapping and its limit, drop mode) as a user
    does (issue 13): the View button (in the ⋯ menu on a phone) opens the sheet, the choice is
    made, Done closes it."""
    menu_click(page, "#view-open")
    page.locator("#view-sheet").wait_for(state="visible")
    page.select_option(selector, value)
    page.click("#view-done")
    page.locator("#view-sheet").wait_for(state="hidden")


def menu_click(page, selector):
    """Clicks a control of the header that may sit in a menu (issue 13: the ⋯ menu holds the
    gallery actions, and on a phone undo, redo, sort, slideshow and download; the Add menu holds
    upload and Add URL): opens its menu first when the control is not on screen."""
    target = page.locator(selector)
    if not target.is_visible():
        menu = target.evaluate("el => el.closest('.popup')?.id")
        assert menu, f"{selector} is neither on screen nor in a menu"
        page.click(f"[aria-controls='{menu}']")
        target.wait_for(state="visible")
    target.click()


def answer(page, value=None, submit=True):
    """Answers the page's question dialog (issue 13: new gallery, rename, delete, add from a
    link — no prompt() or confirm()) as a user does: types `value` into its field (when given)
    and presses its submit button, or Cancel with submit=False. Answers the dialog's locator."""
    dialog = page.locator("dialog.ask[open]")
    dialog.wait_for(state="visible")
    if value is not None:
        field = dialog.locator("input")
        field.fill(value)
    dialog.locator("button[type=submit]" if submit else "button.cancel").click()
    return dialog
