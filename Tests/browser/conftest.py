"""Browser tests: the real server (release build of `gallery`) on a free port with a fresh
data folder, driven by Playwright in Debian's chromium. Screenshots go to artifacts/."""
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
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
GALLERY = Path(os.environ.get("GALLERY_BIN", ROOT / ".build" / "release" / "gallery"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self):
        self.port = free_port()
        self.data = tempfile.mkdtemp(prefix="gallery-test-")
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self):
        log = open(Path(self.data) / "server.log", "ab")
        self.proc = subprocess.Popen(
            [str(GALLERY), "serve", "--port", str(self.port), "--data", self.data,
             "--web", str(ROOT / "Web"), "--wasm", str(ROOT / ".build-wasm" / "engine.wasm"),
             "--allow-private-urls"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/galleries", timeout=1) as r:
                    if r.status == 200:
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

    def api(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"content-type": "application/json"} if data else {})
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read()
            return json.loads(text) if text else None


@pytest.fixture
def server():
    s = Server().start()
    yield s
    s.stop()
    shutil.rmtree(s.data, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    pg = context.new_page()
    pg.on("pageerror", lambda e: print("page error:", e))
    pg.goto(server.url + "/")
    pg.wait_for_selector("body[data-ready='1']", timeout=20000)
    yield pg
    context.close()


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
