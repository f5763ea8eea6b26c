"""Content-Security-Policy and Permissions-Policy (issue 10, item 7): on every page, with no
inline script anywhere for the policy to have to allow, and pages that still work under it in a
real browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from core.headers import permissions_header, policy_header
from tests.browser.test_croupier_flow import PASSWORD
from tests.factories import UserFactory

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
TEMPLATES = Path(settings.BASE_DIR) / "templates"


def test_the_policies_as_configured() -> None:
    assert policy_header(settings.SECURE_CSP) == CSP
    permissions = permissions_header(settings.PERMISSIONS_POLICY)
    assert "camera=()" in permissions and "geolocation=()" in permissions and "microphone=()" in permissions
    assert policy_header({"upgrade-insecure-requests": True, "default-src": ["'self'"]}) == (
        "upgrade-insecure-requests; default-src 'self'"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "url"),
    [
        (None, "/accounts/login/"),
        (None, "/nowhere/"),
        ("croupier", "/"),
        ("croupier", "/table/"),
        ("pit_boss", "/review/"),
        ("pit_boss", "/api/docs/"),
        ("admin", "/admin/"),
        ("croupier", "/api/v1/me/"),
    ],
)
def test_every_page_carries_both_headers(client, croupier, pit_boss, admin_user, who, url) -> None:
    users = {"croupier": croupier, "pit_boss": pit_boss, "admin": admin_user}
    if who:
        client.force_login(users[who])
    response = client.get(url, follow=True)
    assert response["Content-Security-Policy"] == CSP
    assert response["Permissions-Policy"] == permissions_header(settings.PERMISSIONS_POLICY)


@pytest.mark.django_db
def test_html_pages_have_no_inline_script(client, croupier, pit_boss) -> None:
    client.force_login(pit_boss)
    for url in ("/", "/review/", "/api/docs/"):
        html = client.get(url, follow=True).content.decode()
        scripts = re.findall(r"<script\b[^>]*>", html)
        assert scripts and all(" src=" in s for s in scripts), (url, scripts)
        assert "<style" not in html, url
    # the Swagger UI's own start-up script is a file too (?script), served as JavaScript
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")


def test_no_template_has_inline_script_style_or_handlers() -> None:
    offenders = []
    for path in TEMPLATES.rglob("*.html"):
        text = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in tag:
                offenders.append((path.name, tag))
        if re.search(r"<style\b|\sstyle=|\son[a-z]+=|javascript:|hx-on", text):
            offenders.append((path.name, "inline style, handler or javascript: URL"))
    assert offenders == []


# ---------------------------------------------------------------------------- in a real browser
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_pages_work_under_the_policy_without_a_violation(live_server, browser) -> None:
    UserFactory(username="pitboss", roles=["pit_boss"])
    page = browser.new_page()
    complaints: list[str] = []
    page.on("console", lambda m: complaints.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("#id_username", "pitboss")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    # htmx loaded and configured from the meta tag (no eval, no injected style)
    assert page.evaluate(
        "() => htmx.config.allowEval === false && htmx.config.includeIndicatorStyles === false"
    )
    assert page.evaluate("() => document.querySelectorAll('head style').length") == 0
    for url in (reverse("review:queue"), reverse("review:dashboard"), "/api/docs/"):
        page.goto(f"{live_server.url}{url}")
        page.wait_for_load_state("networkidle")
    # the Swagger UI rendered from its own files
    page.wait_for_selector(".swagger-ui .info", timeout=10_000)
    violations = [c for c in complaints if "Content Security Policy" in c or "Permissions-Policy" in c]
    assert violations == []
