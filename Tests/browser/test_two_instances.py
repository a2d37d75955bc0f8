"""Issue 14 point 2: two `gallery serve` instances on one PostgreSQL database and one data
folder, a window on each: a drag in one window shows in the other's on-screen order within a
second, both ways (the instances tell each other through LISTEN/NOTIFY).

PostgreSQL: the server GALLERY_TEST_POSTGRES names (scripts/test.sh starts a private cluster and
sets it for the browser run too). Without it this test fails, like the Swift PostgreSQL cases;
GALLERY_TEST_POSTGRES=skip (set by hand) skips it."""
import os
import shutil
import subprocess
import time
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest

from conftest import (Server, center, mouse_drag, open_page, server_titles, shot, titles, view_setting,
                      wait_changed, wait_idle, wait_images, wait_titles)


def new_database():
    """A new database beside GALLERY_TEST_POSTGRES's; answers its URL."""
    base = os.environ.get("GALLERY_TEST_POSTGRES")
    if base == "skip":
        pytest.skip("GALLERY_TEST_POSTGRES=skip")
    assert base and base.startswith("postgres"), (
        "GALLERY_TEST_POSTGRES is not set: this test runs two instances on PostgreSQL. Run scripts/test.sh, or "
        '`eval "$(scripts/pg-test-cluster.sh start)"` first (GALLERY_TEST_POSTGRES=skip skips it)')
    name = "bt_" + uuid.uuid4().hex
    subprocess.run(["psql", base, "-v", "ON_ERROR_STOP=1", "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=60)
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path="/" + name))


@pytest.fixture
def two_instances():
    database = new_database()
    a = Server(database=database).start()  # makes the sample gallery
    b = Server(database=database, data=a.data).start()
    yield a, b
    b.stop()
    a.stop()
    shutil.rmtree(a.data, ignore_errors=True)


def test_a_drag_in_a_window_on_one_instance_shows_in_a_window_on_the_other(browser, two_instances):
    server_a, server_b = two_instances
    a = open_page(browser, server_a)
    b = open_page(browser, server_b)
    try:
        a.wait_for_selector("#live-state.on")
        b.wait_for_selector("#live-state.on")
        before = titles(a)
        assert titles(b) == before
        mouse_drag(a, center(a, "Apple"), center(a, "Date"))
        wait_idle(a)
        after = wait_changed(a, before)
        t0 = time.time()
        wait_titles(b, after[0], timeout=1000)  # on B's screen, in that order
        assert time.time() - t0 < 1.0
        # The other way: a swap in B's window reaches A's.
        view_setting(b, "#drop-mode", "swap")
        mouse_drag(b, center(b, "Banana"), center(b, "Cherry"))
        wait_idle(b)
        swapped = wait_changed(b, after)
        t0 = time.time()
        wait_titles(a, swapped[0], timeout=1000)
        assert time.time() - t0 < 1.0
        wait_images(a)
        wait_images(b)
        shot(a, "two-instances-window-a")
        shot(b, "two-instances-window-b")
        assert server_titles(server_a) == swapped
        assert server_titles(server_b) == swapped
    finally:
        a.context.close()
        b.context.close()
