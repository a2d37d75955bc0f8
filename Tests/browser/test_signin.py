"""Issue 10, the way in: the sign-in form and its errors, the first account from the setup
link the server prints in its log, two-factor sign-in with a code from an authenticator
app (computed here with pyotp), signing out."""
import re
import shutil
import time

import pyotp
import pytest

from conftest import Server, new_page, shot, wait_images


def sign_in(page, name, password):
    form = page.locator("#gate form")
    form.wait_for()
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=password]").fill(password)
    form.locator("button[type=submit]").click()
    return form


def test_wrong_credentials_are_refused_with_a_message_then_the_right_ones_open_the_gallery(browser, server):
    page = new_page(browser, server, user=False)
    try:
        page.goto(server.url + "/")
        form = page.locator("#gate form")
        form.wait_for()
        assert page.locator("#gate h1").inner_text() == "Sign in"
        assert page.locator("#scroller").is_hidden() and page.locator("#bar").is_hidden()
        shot(page, "sign-in")
        sign_in(page, "ana", "not the password")
        error = form.locator(".form-error")
        error.wait_for()
        assert error.inner_text() == "Wrong name or password."
        sign_in(page, "nobody", "not the password")
        page.wait_for_function("document.querySelector('#gate .form-error').textContent === 'Wrong name or password.'")
        shot(page, "sign-in-error")
        sign_in(page, *server.admin)
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        wait_images(page)
        assert page.locator("#gate").is_hidden()
        assert page.locator("#user-menu").inner_text() == "ana ▾"
        assert page.locator(".cell[aria-label='Apple']").first.is_visible()
        # Signing out returns to the sign-in form.
        page.click("#user-menu")
        page.locator("#user-menu-list [role=menuitem]", has_text="Sign out").first.click()
        page.locator("#gate form").wait_for()
        assert page.locator("#gate h1").inner_text() == "Sign in"
    finally:
        page.context.close()


@pytest.fixture
def fresh_server():
    """A server with no account yet: it prints the one-time setup link in its log."""
    s = Server(admin=None).start()
    yield s
    s.stop()
    shutil.rmtree(s.data, ignore_errors=True)


def test_the_setup_link_from_the_log_creates_the_first_account_which_owns_the_sample_gallery(browser, fresh_server):
    server = fresh_server
    link = re.search(r"(http://\S+/setup#\S+)", server.log())
    assert link, server.log()[-2000:]
    page = new_page(browser, server, user=False)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("#gate .gate-message")
        assert "setup link" in page.locator("#gate").inner_text()
        page.goto(link.group(1).replace("localhost", "127.0.0.1"))
        form = page.locator("#gate form")
        form.wait_for()
        assert page.locator("#gate h1").inner_text() == "Create the first account"
        shot(page, "setup")
        form.locator("input[name=name]").fill("rosa")
        form.locator("input[name=password]").fill("short")
        form.locator("button[type=submit]").click()
        form.locator(".form-error").wait_for()
        assert "8" in form.locator(".form-error").inner_text()
        form.locator("input[name=password]").fill("a long enough password")
        form.locator("button[type=submit]").click()
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        wait_images(page)
        assert page.evaluate("location.pathname") == "/"
        assert page.locator("#user-menu").inner_text() == "rosa ▾"
        assert page.locator(".cell[aria-label='Apple']").first.is_visible()
        assert page.locator("#share-open").is_visible()  # the owner of the sample gallery
        # The link was for one use.
        other = new_page(browser, server, user=False)
        other.goto(link.group(1).replace("localhost", "127.0.0.1"))
        other.wait_for_selector("#gate .gate-message")
        assert other.locator("#gate h1").inner_text() == "Already set up"
        other.context.close()
    finally:
        page.context.close()


def test_two_factor_sign_in_asks_for_the_authenticator_code(browser, server):
    page = new_page(browser, server)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        page.click("#user-menu")
        page.locator("#user-menu-list [role=menuitem]", has_text="Two-factor").click()
        dialog = page.locator("dialog.totp-dialog")
        # Turning it on asks for the password: a wrong one is refused in the dialog.
        dialog.locator("input[name=password]").fill("not the password")
        dialog.locator("button", has_text="Turn on").click()
        dialog.locator(".form-error").wait_for()
        assert "wrong password" in dialog.locator(".form-error").inner_text().lower()
        shot(page, "totp-wrong-password")
        dialog.locator("input[name=password]").fill(server.admin[1])
        dialog.locator("button", has_text="Turn on").click()
        key = dialog.locator("input[aria-label='TOTP key']")
        key.wait_for()
        secret = key.input_value()
        assert dialog.locator("input[aria-label='otpauth URI']").input_value().startswith("otpauth://totp/")
        shot(page, "totp-secret")
        dialog.locator("input[name=code]").fill("000000" if pyotp.TOTP(secret).now() != "000000" else "111111")
        dialog.locator("button", has_text="Confirm").click()
        dialog.locator(".form-error").wait_for()
        assert "does not match" in dialog.locator(".form-error").inner_text()
        dialog.locator("input[name=code]").fill(pyotp.TOTP(secret).now())
        dialog.locator("button", has_text="Confirm").click()
        codes = dialog.locator(".recovery-codes li")
        codes.first.wait_for()
        assert codes.count() == 10
        recovery = codes.first.inner_text()
        shot(page, "totp-recovery-codes")
        dialog.locator(".close").click()
        page.click("#user-menu")
        assert "Two-factor sign-in: on" in page.locator("#user-menu-list").inner_text()
        page.locator("#user-menu-list [role=menuitem]", has_text="Sign out").first.click()

        # Signing in now asks for the code after the password.
        form = sign_in(page, *server.admin)
        code = form.locator("input[name=code]")
        code.wait_for()
        assert "authenticator" in form.locator(".form-error").inner_text()
        shot(page, "sign-in-code")
        code.fill("123456" if pyotp.TOTP(secret).now() != "123456" else "654321")
        form.locator("button[type=submit]").click()
        page.wait_for_function("document.querySelector('#gate .form-error').textContent === 'Wrong name, password or code.'")
        # The code just used to confirm may not be used again (no replay): the next one, which
        # the server accepts a step early (clock drift), signs in.
        code.fill(pyotp.TOTP(secret).at(time.time() + 30))
        form.locator("button[type=submit]").click()
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        assert page.locator("#user-menu").inner_text() == "ana ▾"

        # A recovery code works once, instead of the app's code.
        page.click("#user-menu")
        page.locator("#user-menu-list [role=menuitem]", has_text="Sign out").first.click()
        form = sign_in(page, *server.admin)
        form.locator("input[name=code]").wait_for()
        form.locator("input[name=code]").fill(recovery)
        form.locator("button[type=submit]").click()
        page.wait_for_function("document.body.dataset.ready === '1' || !!document.querySelector('#gate .form-error:not([hidden])')", timeout=20000)
        assert page.locator("#gate").is_hidden(), page.locator("#gate").inner_text()

        # Turning it off asks for the password.
        page.click("#user-menu")
        page.locator("#user-menu-list [role=menuitem]", has_text="Two-factor").click()
        dialog = page.locator("dialog.totp-dialog")
        dialog.locator("input[name=password]").fill("not my password")
        dialog.locator("button", has_text="Turn off").click()
        dialog.locator(".form-error").wait_for()
        assert dialog.locator(".form-error").inner_text() == "Wrong password."
        dialog.locator("input[name=password]").fill(server.admin[1])
        dialog.locator("button", has_text="Turn off").click()
        dialog.locator("button", has_text="Turn on").wait_for()
        server.login(*server.admin)  # no code asked any more
    finally:
        page.context.close()


def test_signing_out_everywhere_ends_the_other_windows_session_at_once(browser, server):
    other = new_page(browser, server)
    page = new_page(browser, server)
    try:
        for p in (other, page):
            p.goto(server.url + "/")
            p.wait_for_selector("body[data-ready='1']", timeout=20000)
        other.wait_for_function("() => document.getElementById('live-state').classList.contains('on')")
        page.click("#user-menu")
        page.locator("#user-menu-list [role=menuitem]", has_text="Sign out everywhere").click()
        page.locator("#gate form").wait_for()
        # The other window's live stream is closed with `revoked`: it says so, the grid is unusable.
        other.wait_for_selector("#notice .notice-card", timeout=2000)
        assert other.locator("#notice h1").inner_text() == "Access ended"
        assert other.evaluate("document.getElementById('scroller').inert") is True
        other.locator("#notice a", has_text="Continue").click()
        other.locator("#gate form").wait_for()
        assert other.locator("#gate h1").inner_text() == "Sign in"
    finally:
        other.context.close()
        page.context.close()
