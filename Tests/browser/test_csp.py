"""Issue 10: the page passes the server's strict Content-Security-Policy (no inline script but
the page's own first one, allowed by its hash; no inline style or handler), and the tests' guard
sees a violation when there is one."""
import base64
import hashlib
import re

from conftest import new_page


def test_the_page_is_served_with_the_strict_policy_and_the_guard_catches_an_inline_style(browser, server):
    page = new_page(browser, server)
    try:
        response = page.goto(server.url + "/")
        policy = response.headers["content-security-policy"]
        # The page's first script is written into it (PageDocument.swift) and allowed by its hash:
        # that one inline script, no other (no 'unsafe-inline').
        html = response.text()
        assert 'src="/js/early.js"' not in html
        inline = re.findall(r"<script>(.*?)</script>", html, re.S)
        assert len(inline) == 1 and "window.early" in inline[0]
        digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
        assert f"script-src 'self' 'sha256-{digest}' 'wasm-unsafe-eval'" in policy, policy
        assert "unsafe-inline" not in policy and "style-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        page.wait_for_selector("body[data-ready='1']", timeout=20000)
        assert page.csp == []  # the written-in script ran (a refused one is a violation here)
        # Its downloads (the engine, the session, the gallery list) started before the page's modules ran.
        early = page.evaluate("""() => performance.getEntriesByType('resource')
            .filter((e) => e.startTime < window.bootMarks.modules).map((e) => new URL(e.name).pathname)""")
        assert {"/engine.wasm", "/api/session", "/api/galleries"} <= set(early), early
        # The engine the page runs is the one the first script compiled and warmed (engine_warm), once:
        # engine.wasm was asked for once.
        assert page.evaluate("app.engine.warmed") is True
        assert [e for e in page.evaluate("performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)")
                if e == "/engine.wasm"] == ["/engine.wasm"]
        # Another inline script is refused.
        page.evaluate("""() => { const s = document.createElement('script'); s.textContent = 'window.injected = 1';
            document.body.append(s); }""")
        page.wait_for_timeout(100)
        assert page.evaluate("window.injected") is None
        assert any("script-src" in v for v in page.csp), page.csp
        page.csp.clear()
        # What the policy refuses, and the guard reports: an inline style attribute.
        page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">inline</p>')")
        page.wait_for_function("() => true")
        page.wait_for_timeout(100)
        assert any("style-src" in v for v in page.csp), page.csp
        page.csp.clear()  # seen: this test's guard has done its job
    finally:
        page.context.close()
