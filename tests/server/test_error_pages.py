"""Browsers get HTML error pages; API clients keep the JSON answer (issue 38)."""

from __future__ import annotations

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"


def test_a_browser_opening_an_unknown_address_gets_a_page_saying_so(app):
    reply = app.test_client().get("/no-such-page", headers={"Accept": BROWSER})
    assert reply.status_code == 404
    assert reply.mimetype == "text/html"
    html = reply.get_data(as_text=True)
    assert "not_found" in html and "there is nothing at this address" in html
    assert 'href="/"' in html  # a way back from the page
    assert reply.get_json(silent=True) is None


def test_api_clients_keep_the_json_refusal(app):
    http = app.test_client()
    for accept in (None, "*/*", "application/json", "application/json, text/html"):
        headers = {"Accept": accept} if accept else {}
        reply = http.get("/no-such-page", headers=headers)
        assert reply.status_code == 404 and reply.mimetype == "application/json", accept
        assert reply.get_json()["code"] == "not_found"


def test_a_wrong_method_from_a_browser_is_a_page_too(app):
    reply = app.test_client().post("/live", headers={"Accept": BROWSER})
    assert reply.status_code == 405 and reply.mimetype == "text/html"
    assert "method_not_allowed" in reply.get_data(as_text=True)
