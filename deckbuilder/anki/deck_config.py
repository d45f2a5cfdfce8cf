"""The deck's study preset (Anki "deck options"), written into the package.

Anki carries a package's preset into the collection only when the user ticks "Import
deck presets" (``with_deck_configs``); otherwise the deck keeps the user's default
preset. Anki never *updates* an existing preset on import: it inserts presets whose id
it does not have yet and ignores the rest (measured with Anki 26.9, and so its importer
reads). So the preset id is derived from the deck id *and* the settings: rebuilding
with the same settings gives the same id (re-imports add nothing, and a user's own
edits to the preset stay), while changed settings give one new preset that the deck
switches to.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from deckbuilder.model import Deck, StudySettings


def preset_id(deck_key: str, study: StudySettings) -> int:
    """The preset id for a deck and its settings, in [2**50, 2**51) like the deck id."""
    settings = json.dumps(_settings(study), sort_keys=True)
    digest = hashlib.sha256(f"deckbuilder\x1fpreset\x1f{deck_key}\x1f{settings}".encode()).digest()
    return (1 << 50) + int.from_bytes(digest[:8], "big") % (1 << 50)


def preset_name(deck: Deck, study: StudySettings) -> str:
    """Named after the deck, with the settings, so that two versions can be told apart."""
    return (
        f"{deck.name} ({study.new_per_day} new/day, {study.review_limit} reviews/day, "
        f"{study.desired_retention:.0%} retention)"
    )


def _settings(study: StudySettings) -> dict[str, Any]:
    return {
        "new_per_day": study.new_per_day,
        "review_limit": study.review_limit,
        "desired_retention": study.desired_retention,
        "learning_steps": list(study.learning_steps),
        "relearning_steps": list(study.relearning_steps),
        "maximum_interval": study.maximum_interval,
    }


def _minutes(steps: tuple[float, ...]) -> list[float | int]:
    out: list[float | int] = []
    for seconds in steps:
        minutes = seconds / 60
        out.append(int(minutes) if minutes == int(minutes) else round(minutes, 4))
    return out


def preset_json(deck: Deck, study: StudySettings, mod: int) -> dict[str, Any]:
    """The legacy (schema 11) deck-config JSON that genanki's collection format holds."""
    return {
        "id": preset_id(deck.key, study),
        "name": preset_name(deck, study),
        "mod": mod,
        "usn": -1,
        "maxTaken": 60,
        "autoplay": True,
        "timer": 0,
        "replayq": True,
        "dyn": False,
        "new": {
            "bury": False,
            "delays": _minutes(study.learning_steps),
            "initialFactor": 2500,
            "ints": [1, 4, 0],
            "order": 1,
            "perDay": study.new_per_day,
        },
        "lapse": {
            "delays": _minutes(study.relearning_steps),
            "leechAction": 1,
            "leechFails": 8,
            "minInt": 1,
            "mult": 0.0,
        },
        "rev": {
            "bury": False,
            "ease4": 1.3,
            "ivlFct": 1.0,
            "maxIvl": study.maximum_interval,
            "perDay": study.review_limit,
            "hardFactor": 1.2,
        },
        "desiredRetention": study.desired_retention,
    }


def apply_study(conn: sqlite3.Connection, deck: Deck, deck_id: int, mod: int) -> None:
    """Give the deck its own preset in the package's collection (no-op without a study block)."""
    if deck.study is None:
        return
    preset = preset_json(deck, deck.study, mod)
    (dconf_text, decks_text) = conn.execute("SELECT dconf, decks FROM col").fetchone()
    dconf = json.loads(dconf_text)
    dconf[str(preset["id"])] = preset
    decks = json.loads(decks_text)
    decks[str(deck_id)]["conf"] = preset["id"]
    conn.execute("UPDATE col SET dconf = ?, decks = ?", (json.dumps(dconf), json.dumps(decks)))
