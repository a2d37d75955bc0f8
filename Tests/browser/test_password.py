"""Issue 10, a user's own account: changing one's password (the current one first; other
devices signed out at once), an owner who is no admin sharing with someone by name, and a
page whose stream comes back to a server that no longer lets it in."""
import subprocess
import urllib.error

import pytest

from conftest import GALLERY, ROOT, new_page, shot, wait_images


def ready(page, server):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=20000)
    wait_images(page)


def open_menu_item(page, text):
    page.click("#user-menu")
    page.locator("#user-menu-list [role=menuitem]", has_text=text).click()


def test_a_user_changes_their_password_and_their_other_devices_are_signed_out(browser, server):
    server.add_user("bob", "bob's first password")
    server.api("PUT", "/api/galleries/1/members/bob", {"role": "viewer"})
    laptop = new_page(browser, server, user=("bob", "bob's first password"))
    phone = new_page(browser, server, user=("bob", "bob's first password"), viewport={"width": 390, "height": 844})
    try:
        ready(laptop, server)
        ready(phone, server)
        open_menu_item(laptop, "Change password")
        dialog = laptop.locator("dialog.password-dialog")
        form = dialog.locator("form.password-form")
        form.locator("input[name=current]").fill("not my password")
        form.locator("input[name=password]").fill("bob's second password")
        form.locator("input[name=again]").fill("bob's second password")
        form.locator("button[type=submit]").click()
        error = form.locator(".form-error")
        error.wait_for()
        assert "current password is wrong" in error.inner_text().lower()
        form.locator("input[name=current]").fill("bob's first password")
        form.locator("input[name=again]").fill("bob's second passwort")
        form.locator("button[type=submit]").click()
        laptop.wait_for_function("() => document.querySelector('.password-form .form-error')?.textContent === 'The two new passwords differ.'")
        form.locator("input[name=again]").fill("bob's second password")
        shot(laptop, "password-change")
        form.locator("button[type=submit]").click()
        dialog.wait_for(state="detached")
        laptop.wait_for_function("() => document.getElementById('toast').textContent.startsWith('Password changed')")

        # The phone's session ended: its page says so (its stream was closed by the server).
        phone.wait_for_selector("#notice .notice-card", timeout=3000)
        assert phone.locator("#notice h1").inner_text() == "Access ended"
        # The laptop keeps working with its renewed session.
        laptop.reload()
        laptop.wait_for_selector("body[data-ready='1']", timeout=20000)
        assert laptop.locator("#role-badge").inner_text() == "viewer"
        # The new password signs in, the old one no longer does.
        with pytest.raises(urllib.error.HTTPError) as refused:
            server.login("bob", "bob's first password")
        assert refused.value.code == 401
        assert server.login("bob", "bob's second password")["user"]["name"] == "bob"
    finally:
        laptop.context.close()
        phone.context.close()


def test_an_owner_who_is_no_admin_shares_with_someone_by_name(browser, server):
    server.add_user("bob", "bob's long password")
    server.add_user("carl", "carl's long password")
    server.login("bob", "bob's long password")
    mine = server.api("POST", "/api/galleries", {"name": "Bob's trip"})
    server.login(*server.admin)
    bob = new_page(browser, server, user=("bob", "bob's long password"))
    try:
        bob.goto(server.url + "/")
        bob.wait_for_selector("body[data-ready='1']", timeout=20000)
        assert bob.locator("#gallery-select option").all_inner_texts()[0].startswith("Bob's trip")
        assert bob.evaluate("app.model.id") == mine["id"]
        bob.click("#share-open")
        dialog = bob.locator("dialog.share-dialog")
        form = dialog.locator("form.member-form")
        form.locator("input[name=name]").fill("carl")
        form.locator("button[type=submit]").click()
        row = dialog.locator(".member-row[data-member='carl']")
        row.wait_for()
        assert row.locator("select").input_value() == "viewer"
        # Carl now sees Bob's gallery, and only it.
        server.login("carl", "carl's long password")
        assert [g["name"] for g in server.api("GET", "/api/galleries")] == ["Bob's trip"]
    finally:
        server.login(*server.admin)
        bob.context.close()


def test_a_page_coming_back_to_a_server_that_no_longer_lets_it_in_says_so(browser, server):
    server.add_user("bob", "bob's long password")
    server.api("PUT", "/api/galleries/1/members/bob", {"role": "viewer"})
    bob = new_page(browser, server, user=("bob", "bob's long password"))
    try:
        ready(bob, server)
        bob.wait_for_function("() => document.getElementById('live-state').classList.contains('on')")
        # While the server is down, the admin removes Bob's account on the command line.
        server.stop()
        bob.wait_for_function("() => !document.getElementById('live-state').classList.contains('on')")
        subprocess.run([str(GALLERY), "user", "remove", "bob", "--data", server.data], check=True, capture_output=True, cwd=ROOT, timeout=60)
        server.start()
        # The page's own reconnect finds the door closed and says so (no silent retrying).
        bob.wait_for_selector("#notice .notice-card", timeout=10000)
        assert bob.locator("#notice h1").inner_text() == "Access ended"
        assert bob.evaluate("app.live.source") is None
    finally:
        bob.context.close()
