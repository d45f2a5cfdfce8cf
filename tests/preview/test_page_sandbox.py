"""Issue 45: on the preview page, card scripts run nowhere they can do harm. An imported
note type's script, written to steal (tests/preview/hostile.py), reads nothing of the page
around its card, changes nothing there, sends nothing anywhere, and says so in its own
side; messages it forges change nothing but its own frame's height. The same page under
``watch --serve``, where the server's other pages are one request away, is tested in
tests/app/test_serve.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run
from tests.preview.hostile import Recorded, assert_contained, hostile_deck, stun_server

CliRun = Callable[..., Run]
REMOTE = "http://exfil.invalid"
TARGETS = [f"{REMOTE}/steal"]

pytestmark = pytest.mark.browser


def test_a_hostile_card_script_reaches_nothing(tmp_path: Path, cli: CliRun, browser: Any) -> None:
    """Before the sandbox, its script read and changed the page, sent the card's text away
    by navigating the page, and made peer connections to any address."""
    with stun_server() as stun:
        source = hostile_deck(
            tmp_path / "cards",
            "hostile",
            TARGETS,
            top=f"{REMOTE}/top",
            navigate_to=f"{REMOTE}/navigate",
            stun_port=stun.getsockname()[1],
        )
        page = tmp_path / "hostile.html"
        assert cli("preview", source, "--html-out", page).code == 0
        tab = Recorded(browser, page.as_uri(), lambda url: url == page.as_uri())
        try:
            tab.page.wait_for_selector("html[data-cards-loaded=true]", state="attached")
            assert_contained(tab, TARGETS, stun)
            # Nothing left the page: every request a card made was refused by its side's
            # policy (a relative address, a file beside the page, as a local file).
            assert tab.routed == tab.finished == [page.as_uri()]
            assert {reason for _, reason in tab.failed} <= {"csp", "other"}
            assert [url for url, reason in tab.failed if reason == "other"] == [
                url for url, _ in tab.failed if url.startswith("file:")
            ]
            assert tab.page.url == page.as_uri()
        finally:
            tab.close()
