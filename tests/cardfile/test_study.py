"""The deck's study settings: validated at load time, carried into Anki as the deck's own preset."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.deck_config import preset_id, preset_name
from deckbuilder.errors import DeckError
from deckbuilder.model import StudySettings
from tests.app_calls import build_packages
from tests.cardfile.loading import load_deck
from tests.conftest import Run, import_package

CliRun = Callable[..., Run]

STUDY = """deck: "Study::Test"
id: study-test
study:
  new_per_day: {new}
  review_limit: 77
  desired_retention: 0.85
  learning_steps: [30s, 5m]
  relearning_steps: [15m]
  maximum_interval: 400
notes:
  - {{id: a, front: f, back: b}}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_study_block_is_read_in_anki_units(tmp_path: Path) -> None:
    study = load_deck(write(tmp_path, STUDY.format(new=7))).study
    assert study == StudySettings(
        new_per_day=7,
        review_limit=77,
        desired_retention=0.85,
        learning_steps=(30.0, 300.0),
        relearning_steps=(900.0,),
        maximum_interval=400,
    )


def test_no_study_block_means_none_and_defaults_are_ankis(tmp_path: Path) -> None:
    assert (
        load_deck(write(tmp_path, "deck: D\nnotes: [{id: a, front: f, back: b}]\n")).study is None
    )
    partial = load_deck(
        write(tmp_path, "deck: D\nstudy: {new_per_day: 5}\nnotes: [{id: a, front: f, back: b}]\n")
    ).study
    assert partial == StudySettings(
        new_per_day=5,
        review_limit=200,
        desired_retention=0.9,
        learning_steps=(60.0, 600.0),
        relearning_steps=(600.0,),
        maximum_interval=36500,
    )


@pytest.mark.parametrize(
    ("study", "expected"),
    [
        ("{desired_retention: 0.5}", ":2: 'desired_retention' is 0.5; Anki allows 0.70 to 0.99"),
        ("{desired_retention: 1.2}", ":2: 'desired_retention' is 1.2; Anki allows 0.70 to 0.99"),
        (
            "{desired_retention: 95}",
            ":2: 'desired_retention' is 95; Anki allows 0.70 to 0.99 (a retention is a share: "
            "0.95 for 95%)",
        ),
        (
            "{desired_retention: high}",
            ":2: 'desired_retention' must be a number like 0.9, not 'high'",
        ),
        ("{desired_retention: .nan}", ":2: 'desired_retention' is .nan; Anki allows 0.70 to 0.99"),
        ("{desired_retention: -.inf}", ":2: 'desired_retention' is -.inf; Anki allows"),
        # YAML 1.1 reads 1:30.5 as a base-60 float
        ("{desired_retention: 1:30.5}", ":2: 'desired_retention' must be a number like 0.9"),
        ("{new_per_day: -1}", ":2: 'new_per_day' is -1; allowed: 0 to 9999"),
        ("{new_per_day: 10000}", ":2: 'new_per_day' is 10000; allowed: 0 to 9999"),
        ("{new_per_day: 1:30}", ":2: 'new_per_day' must be a whole number like 20, not '1:30'"),
        ("{new_per_day: true}", ":2: 'new_per_day' must be a whole number like 20, not 'true'"),
        ("{review_limit: 2.5}", ":2: 'review_limit' must be a whole number like 20, not '2.5'"),
        ("{review_limit: ~}", ":2: 'review_limit' must be a whole number like 20, not nothing"),
        ("{review_limit: [5]}", ":2: 'review_limit' must be a whole number like 20, not a list"),
        (f"{{review_limit: {'9' * 5000}}}", f":2: 'review_limit' is {'9' * 40}…; allowed: 0 to"),
        ("{maximum_interval: 0}", ":2: 'maximum_interval' is 0; allowed: 1 to 36500"),
        ("{maximum_interval: 36501}", ":2: 'maximum_interval' is 36501; allowed: 1 to 36500"),
        (
            "{learning_steps: [1m, soon]}",
            ":2: 'learning_steps' entry 'soon' is not a step like 30s, 10m, 1h or 1d",
        ),
        ("{relearning_steps: [0m]}", "'relearning_steps' entry '0m' is not a step"),
        ("{learning_steps: [{a: 1}]}", "'learning_steps' entry a mapping is not a step"),
        (
            "{learning_steps: [24856d]}",
            ":2: 'learning_steps' entry '24856d' is longer than Anki's longest step, "
            "24855 days (2147483648 seconds)",
        ),
        (
            f"{{relearning_steps: [{'9' * 400}s]}}",
            "'relearning_steps' entry '9999999999999999999999999999999999999999…' is longer",
        ),
        # A million digits: no overflow, no conversion in time growing with the square.
        (
            f"{{learning_steps: [{'9' * 1_000_000}d]}}",
            "'learning_steps' entry '9999999999999999999999999999999999999999…' is longer",
        ),
        (
            f"{{learning_steps: [0.{'0' * 1_000_000}1s]}}",
            "is not a whole number of seconds",
        ),
        (f"{{new_per_day: -{'9' * 1_000_000}}}", ":2: 'new_per_day' is -999"),
        (
            "{learning_steps: [1.5s]}",
            ":2: 'learning_steps' entry '1.5s' is not a whole number of seconds; "
            "Anki schedules steps in whole seconds",
        ),
        ("{learning_steps: [0.001s]}", "'learning_steps' entry '0.001s' is not a whole number"),
        ("{new_perday: 5}", ":2: unknown key 'new_perday' in 'study'; did you mean 'new_per_day'?"),
        ("[20]", ":2: 'study' must be a mapping (new_per_day:, ...), not a list"),
    ],
)
def test_study_values_out_of_range_are_located(tmp_path: Path, study: str, expected: str) -> None:
    path = write(tmp_path, f"deck: D\nstudy: {study}\nnotes: [{{id: a, front: f, back: b}}]\n")
    with pytest.raises(DeckError) as info:
        load_deck(path)
    assert any(expected in str(p) for p in info.value.problems), info.value


@pytest.mark.parametrize(
    ("study", "read"),
    [
        (
            "{learning_steps: [0.1m, 1.5m, 24855d]}",
            {"learning_steps": (6.0, 90.0, 24855 * 86400.0)},
        ),
        (
            "{learning_steps: [], relearning_steps: 5m}",
            {"learning_steps": (), "relearning_steps": (300.0,)},
        ),
        ("{new_per_day: 0x10, review_limit: 1_000}", {"new_per_day": 16, "review_limit": 1000}),
        ("{new_per_day: 9999, maximum_interval: 1}", {"new_per_day": 9999, "maximum_interval": 1}),
        ("{desired_retention: 0.7}", {"desired_retention": 0.7}),
        ("{desired_retention: 0.99}", {"desired_retention": 0.99}),
    ],
)
def test_study_values_at_anki_limits_are_read(
    tmp_path: Path, study: str, read: dict[str, object]
) -> None:
    """Steps to the second (0.1m is 6 s exactly), up to Anki's longest step; YAML's
    integer spellings; the ends of Anki's ranges."""
    path = write(tmp_path, f"deck: D\nstudy: {study}\nnotes: [{{id: a, front: f, back: b}}]\n")
    settings = load_deck(path).study
    assert settings is not None
    assert {key: getattr(settings, key) for key in read} == read


@pytest.mark.anki
def test_the_longest_step_is_one_anki_schedules_and_logs(
    tmp_path: Path, collection: object
) -> None:
    """Anki's step editor caps a step at 2**31 seconds so that its review log can hold it
    (as negative i32 seconds); the longest step a study block allows stays within that
    once Anki has read the preset from the package."""
    col: Any = collection
    source = write(
        tmp_path,
        'deck: "Long"\nid: long\nstudy: {learning_steps: [24855d], relearning_steps: [1s]}\n'
        "notes: [{id: a, front: f, back: b}]\n",
    )
    (result,) = build_packages([source], tmp_path / "out", timestamp=1_700_000_000)
    import_package(col, result.path, with_deck_configs=True)
    conf = col.decks.config_dict_for_deck_id(col.decks.id_for_name("Long"))
    assert conf["new"]["delays"] == [pytest.approx(24855 * 1440)]
    assert conf["lapse"]["delays"] == [pytest.approx(1 / 60, abs=1e-4)]
    (card_id,) = col.find_cards("")
    again = col._backend.get_scheduling_states(card_id).again
    assert 24854 * 86400 < again.normal.learning.scheduled_secs <= 2**31


@pytest.mark.anki
def test_preset_travels_only_with_import_deck_presets(tmp_path: Path, collection: object) -> None:
    col: object = collection
    (result,) = build_packages(
        [write(tmp_path, STUDY.format(new=7))], tmp_path / "out", timestamp=1_700_000_000
    )

    import_package(col, result.path, with_deck_configs=False)
    did = col.decks.id_for_name("Study::Test")  # type: ignore[attr-defined]
    conf = col.decks.config_dict_for_deck_id(did)  # type: ignore[attr-defined]
    assert conf["id"] == 1 and conf["name"] == "Default"  # Anki's default preset, untouched
    assert conf["new"]["perDay"] == 20 and len(col.decks.all_config()) == 1  # type: ignore[attr-defined]

    import_package(col, result.path, with_deck_configs=True)
    conf = col.decks.config_dict_for_deck_id(did)  # type: ignore[attr-defined]
    study = load_deck(tmp_path / "deck.yaml").study
    assert study is not None
    assert conf["id"] == preset_id("study-test", study)
    assert conf["name"] == "Study::Test (7 new/day, 77 reviews/day, 85% retention)"
    assert (conf["new"]["perDay"], conf["rev"]["perDay"]) == (7, 77)
    assert conf["desiredRetention"] == pytest.approx(0.85)
    assert conf["new"]["delays"] == [0.5, 5.0] and conf["lapse"]["delays"] == [15.0]
    assert conf["rev"]["maxIvl"] == 400


@pytest.mark.anki
def test_reimporting_keeps_one_preset_until_the_settings_change(
    tmp_path: Path, collection: object
) -> None:
    """Anki inserts presets it lacks and never updates one it has (INSERT OR IGNORE by id):
    an unchanged rebuild must not pile up copies, and changed settings must still arrive."""
    col: object = collection
    source = write(tmp_path, STUDY.format(new=7))

    def presets() -> list[dict[str, object]]:
        return [c for c in col.decks.all_config() if str(c["name"]).startswith("Study::Test")]  # type: ignore[attr-defined]

    (first,) = build_packages([source], tmp_path / "out", timestamp=1_700_000_000)
    import_package(col, first.path, with_deck_configs=True)
    (again,) = build_packages([source], tmp_path / "out", timestamp=1_700_000_300)
    import_package(col, again.path, with_deck_configs=True)
    assert len(presets()) == 1

    source.write_text(STUDY.format(new=12), encoding="utf-8")
    (changed,) = build_packages([source], tmp_path / "out", timestamp=1_700_000_600)
    import_package(col, changed.path, with_deck_configs=True)
    did = col.decks.id_for_name("Study::Test")  # type: ignore[attr-defined]
    conf = col.decks.config_dict_for_deck_id(did)  # type: ignore[attr-defined]
    study = load_deck(source).study
    assert study is not None
    assert conf["id"] == preset_id("study-test", study) and conf["new"]["perDay"] == 12
    assert conf["name"] == preset_name(load_deck(source), study)
    assert len(presets()) == 2  # the old version stays, unused, for the user to delete


def test_preview_uses_the_study_block_and_says_so(tmp_path: Path, cli: CliRun) -> None:
    deck = write(tmp_path, STUDY.format(new=7))
    data = json.loads(cli("preview", deck, "--json", "--days", "30").out)
    settings = data["settings"]
    assert (settings["new_per_day"], settings["review_limit"]) == (7, 77)
    assert settings["desired_retention"] == 0.85 and settings["maximum_interval"] == 400
    assert settings["learning_steps_seconds"] == [30.0, 300.0]
    origin = f"the deck's study block ({deck}:3); Anki's defaults for the rest"
    assert data["settings_from"] == origin
    text = cli("preview", deck, "--days", "30").out
    assert "retention 0.85, 7 new/day, review limit 77/day, 30 days" in text
    assert f"settings from {origin}" in text


def test_command_line_options_win_over_the_study_block(tmp_path: Path, cli: CliRun) -> None:
    deck = write(tmp_path, STUDY.format(new=7))
    data = json.loads(cli("preview", deck, "--json", "--new-per-day", "3", "--days", "30").out)
    assert data["settings"]["new_per_day"] == 3 and data["settings"]["review_limit"] == 77
    assert data["settings_from"].endswith("with new cards a day set for this preview")
    assert data["forecast"]["new"][:2] == [1, 0]  # one card: 1 new on day 1


def test_without_a_study_block_ankis_default_deck_options_apply(
    tmp_path: Path, cli: CliRun
) -> None:
    """Anki gives a deck imported without a preset its default deck options: 20 new cards
    and 200 reviews a day. The preview assumes the same, as it does for a study block
    that leaves a key out (issue 21: no block used to mean no review limit)."""
    deck = write(tmp_path, "deck: D\nnotes: [{id: a, front: f, back: b}]\n")
    data = json.loads(cli("preview", deck, "--json", "--days", "5").out)
    assert data["settings"]["new_per_day"] == 20 and data["settings"]["review_limit"] == 200
    assert data["settings_from"] == "Anki's default deck options (the deck has no study block)"
    text = cli("preview", deck, "--days", "5").out
    assert "retention 0.9, 20 new/day, review limit 200/day, 5 days" in text


def test_no_study_block_and_an_empty_one_forecast_the_same(tmp_path: Path, cli: CliRun) -> None:
    """One set of study defaults: no block, an empty block and a block giving only some
    keys all take Anki's defaults for what they leave out."""
    notes = "notes:\n" + "".join(f"  - {{id: n{i}, front: f{i}, back: b}}\n" for i in range(300))
    heads = [
        "deck: D\n",
        "deck: D\nstudy: {}\n",
        "deck: D\nstudy: {desired_retention: 0.9}\n",
        "deck: D\nstudy: {review_limit: 200, new_per_day: 20}\n",
    ]
    previews = []
    for i, head in enumerate(heads):
        path = tmp_path / f"d{i}.yaml"
        path.write_text(head + notes, encoding="utf-8")
        data = json.loads(cli("preview", path, "--json", "--days", "60").out)
        previews.append((data["settings"], data["forecast"], data["summary"]))
    assert all(preview == previews[0] for preview in previews)


def test_build_previews_with_the_study_block(tmp_path: Path, cli: CliRun) -> None:
    source = write(tmp_path, STUDY.format(new=7))
    with_study = json.loads(cli("build", source, "--out", tmp_path / "out", "--json").out)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "deck.yaml").write_text(
        STUDY.format(new=7).split("study:")[0] + "notes:\n  - {id: a, front: f, back: b}\n",
        encoding="utf-8",
    )
    without = json.loads(
        cli("build", plain / "deck.yaml", "--out", tmp_path / "out2", "--json").out
    )
    ours, theirs = with_study["decks"][0]["preview"], without["decks"][0]["preview"]
    assert ours["cards"] == theirs["cards"] == 1
    # retention 0.85 with a 400-day cap schedules the one card differently from 0.9 uncapped
    assert ours != theirs


# -- the preview's FSRS parameters and review history (issue 22) -------------------------------
def strong_parameters() -> tuple[float, ...]:
    """A learner whose first memories last three times the defaults."""
    from deckbuilder.schedule import DEFAULT_PARAMETERS

    return tuple(x * 3 if i < 4 else x for i, x in enumerate(DEFAULT_PARAMETERS))


def deck_with(tmp_path: Path, study: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    return write(tmp_path, f"deck: D\nstudy:\n{study}notes: [{{id: a, front: f, back: b}}]\n")


@pytest.mark.parametrize("form", ["list", "text"])
def test_study_block_reads_params_as_a_list_or_as_anki_shows_them(
    tmp_path: Path, form: str
) -> None:
    w = strong_parameters()
    written = f"[{', '.join(map(str, w))}]" if form == "list" else f'"{", ".join(map(str, w))}"'
    study = load_deck(deck_with(tmp_path, f"  params: {written}\n")).study
    assert study is not None and study.parameters == w and study.history is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("  params: [1, 2, 3]\n", ":4: 'params': expected 21 FSRS-6 parameters, got 3"),
        ("  params: [0.2, x]\n", ":4: 'params' must be a number like 0.9, not 'x'"),
        ('  params: "0.2, 1.3, nope"\n', ":4: 'params' entry 'nope' is not a number"),
        ("  params: 5\n", ":4: 'params' must be a list of 21 numbers, not '5'"),
        ("  history: gone.anki2\n", ":4: 'history' file"),
        ("  history: [a]\n", ":4: 'history' must be the path of a review history"),
    ],
)
def test_study_params_and_history_problems_are_located(
    tmp_path: Path, line: str, expected: str
) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(deck_with(tmp_path, "  new_per_day: 5\n" + line))
    messages = [str(p) for p in info.value.problems]
    assert any(expected in m for m in messages), messages
    assert all(m.startswith(str(tmp_path / "deck.yaml")) for m in messages)


def test_a_missing_history_names_where_it_was_looked_for(tmp_path: Path) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(deck_with(tmp_path, "  history: profile/collection.anki2\n"))
    (problem,) = info.value.problems
    assert str(tmp_path / "profile" / "collection.anki2") in str(problem)
    assert "relative to the card file's folder" in str(problem)


def test_out_of_bounds_params_are_refused_with_the_bounds(tmp_path: Path) -> None:
    w = list(strong_parameters())
    w[0] = 500.0
    with pytest.raises(DeckError) as info:
        load_deck(deck_with(tmp_path, f"  params: {w}\n"))
    assert ":3: 'params':" in str(info.value.problems[0])


def test_preview_and_build_use_the_study_blocks_params(tmp_path: Path, cli: CliRun) -> None:
    w = strong_parameters()
    deck = deck_with(tmp_path, f"  params: {list(w)}\n")
    data = json.loads(cli("preview", deck, "--json", "--days", "60").out)
    assert data["settings"]["parameters"] == list(w)
    assert data["parameters_from"] == {"study_block": f"{deck}:2"}
    assert data["settings_from"].endswith("; parameters from the study block")
    # three times the first stability: a longer first interval than the defaults give
    plain = json.loads(cli("preview", deck_with(tmp_path / "p", ""), "--json").out)
    assert data["ladder"]["good"][0] > plain["ladder"]["good"][0]
    given = ",".join(map(str, plain["settings"]["parameters"]))
    wins = json.loads(cli("preview", deck, "--json", "--params", given, "--days", "60").out)
    assert wins["settings"]["parameters"] == plain["settings"]["parameters"]
    assert wins["parameters_from"] == {"given": "params"}
    built = json.loads(cli("build", deck, "--out", tmp_path / "out", "--json").out)
    built_plain = json.loads(
        cli("build", deck_with(tmp_path / "q", ""), "--out", tmp_path / "o2", "--json").out
    )
    assert built["decks"][0]["preview"] != built_plain["decks"][0]["preview"]


def test_a_bad_parameter_in_a_list_over_several_lines_is_reported_at_its_own_line(
    tmp_path: Path,
) -> None:
    w = [str(x) for x in strong_parameters()]
    w[5] = "500"
    lines = "".join(f"    - {x}\n" for x in w)  # w[5] on line 4 + 5
    with pytest.raises(DeckError) as info:
        load_deck(deck_with(tmp_path, "  params:\n" + lines))
    (problem,) = info.value.problems
    assert problem.line == 9 and "w[5]=500 is outside" in problem.message


def test_a_history_that_is_a_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(deck_with(tmp_path, "  history: .\n"))
    (problem,) = info.value.problems
    assert problem.line == 3 and "is a folder" in problem.message
    assert "not found" not in problem.message
