"""Issue 10: the page passes the server's strict Content-Security-Policy (no inline script,
style or handler), and the tests' guard sees a violation when there is one."""
from conftest import new_page


def test_the_page_is_served_with_the_strict_policy_and_the_guard_catches_an_inline_style(browser, server):
    page = new_page(browser, server)
    try:
        response = page.goto(server.url + "/")
        policy = response.headers["content-security-policy"]
        assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "style-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        assert page.csp == []
        # What the policy refuses, and the guard reports: an inline style attribute.
        page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">inline</p>')")
        page.wait_for_function("() => true")
        page.wait_for_timeout(100)
        assert any("style-src" in v for v in page.csp), page.csp
        page.csp.clear()  # seen: this test's guard has done its job
    finally:
        page.context.close()
