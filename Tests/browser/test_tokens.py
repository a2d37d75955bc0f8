"""Issue 10, API tokens: made in the user menu's dialog with a name and a scope, shown once,
used by a script as a Bearer token, listed with their last use, revoked."""
import urllib.error
import urllib.request

import pytest

from conftest import shot


def bearer(server, token, path="/api/galleries"):
    req = urllib.request.Request(server.url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def test_a_token_is_shown_once_works_for_a_script_shows_its_last_use_and_can_be_revoked(page, server):
    page.click("#user-menu")
    page.locator("#user-menu-list [role=menuitem]", has_text="API tokens").click()
    dialog = page.locator("dialog.tokens-dialog")
    dialog.wait_for()
    form = dialog.locator("form.token-form")
    form.locator("button[type=submit]").click()
    assert form.locator(".form-error").inner_text() == "Give the token a name, to know later what uses it."
    form.locator("input[name=name]").fill("backup script")
    form.locator("select[name=scope]").select_option("read")
    form.locator("button[type=submit]").click()
    value = dialog.locator(".created-token .copy-value")
    value.wait_for()
    token = value.input_value()
    assert len(token) >= 20
    assert dialog.locator(".created-token .once").inner_text() == "Copy the token “backup script” now: it is shown only once."
    row = dialog.locator(".token-row[data-token='backup script']")
    row.wait_for()
    assert "read only" in row.inner_text() and "last used never" in row.inner_text()
    shot(page, "tokens-dialog")

    assert bearer(server, token) == 200
    # Reopened, the dialog lists the token with its last use, and no longer shows the token.
    dialog.locator(".close").click()
    page.click("#user-menu")
    page.locator("#user-menu-list [role=menuitem]", has_text="API tokens").click()
    row = page.locator("dialog.tokens-dialog .token-row[data-token='backup script']")
    row.wait_for()
    assert "last used never" not in row.inner_text()
    assert page.locator("dialog.tokens-dialog .created-token .copy-value").count() == 0

    row.locator("button", has_text="Revoke").click()
    page.locator("dialog.tokens-dialog .rows .empty").wait_for()
    with pytest.raises(urllib.error.HTTPError) as refused:
        bearer(server, token)
    assert refused.value.code == 401
