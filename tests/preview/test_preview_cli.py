"""`deckbuilder preview` and the preview summary of `deckbuilder build`, as a user runs them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from deckbuilder.schedule import DEFAULT_PARAMETERS
from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]

# The bundled deck: 8 multiple-choice notes (8 cards) and 6 cloze notes with 13 clozes.
BUNDLED_CARDS = 21


def test_preview_shows_ladder_forecast_and_summary(project: Path, cli: CliRun) -> None:
    result = cli("preview")  # a bilingual deck previews its default language, ko
    assert result.code == 0, result.err
    out = result.out
    assert out.startswith("ML 시스템::그래디언트 체크포인팅  (cards/gradient-checkpointing.yaml)")
    assert f"{BUNDLED_CARDS} cards" in out.splitlines()[0]
    assert re.search(r"^  Good\s+2\s+11\s+46\s+163\s+497$", out, re.M)
    assert re.search(r"^  Again, Good\s+1\s", out, re.M)
    for label in ("reviews a day", "new cards a day", "minutes a day", "memorized"):
        assert re.search(rf"^  {re.escape(label)}\s+\|[ ▁▂▃▄▅▆▇█]{{60}}\|", out, re.M), label
    assert re.search(r"^  reviews a day\s+peak \d+\.\d on day \d+; average \d+\.\d", out, re.M)
    assert re.search(r"^  minutes a day\s+peak \d+\.\d on day \d+; average \d+\.\d", out, re.M)
    assert "all cards introduced  by day 3" in out  # 21 cards at the study block's 10 a day
    assert re.search(rf"memorized at the end\s+[\d.]+ of {BUNDLED_CARDS} cards", out)
    assert "Memorized: cards expected to be recalled if asked that day." in out
    assert result.err == ""
    assert not (project / "output").exists()


def test_preview_json(project: Path, cli: CliRun) -> None:
    result = cli("preview", "--json", "--days", "120", "--new-per-day", "5")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["cards"] == BUNDLED_CARDS
    assert data["ladder"]["good"][:3] == [2, 11, 46]
    assert set(data["ladder"]) == {"good", "hard", "easy", "again_good"}
    fc = data["forecast"]
    for key in ("reviews", "new", "minutes", "memorized"):
        assert len(fc[key]) == 120, key
    assert fc["new"][:5] == [5, 5, 5, 5, 1] and sum(fc["new"]) == BUNDLED_CARDS
    assert fc["memorized"][0] == 5
    summary = data["summary"]
    assert summary["fully_introduced_day"] == 5
    assert summary["peak_reviews_per_day"] == max(fc["reviews"])
    assert fc["reviews"][summary["peak_day"] - 1] == max(fc["reviews"])
    assert summary["memorized_at_end"] == fc["memorized"][-1]
    assert data["settings"]["new_per_day"] == 5


def test_preview_is_deterministic_and_seeded(project: Path, cli: CliRun) -> None:
    first = cli("preview", "--json").out
    assert cli("preview", "--json").out == first
    assert cli("preview", "--json", "--seed", "42").out == first
    other = json.loads(cli("preview", "--json", "--seed", "7").out)
    assert other["forecast"] != json.loads(first)["forecast"]
    assert other["ladder"] == json.loads(first)["ladder"]


def test_preview_counts_cards_not_notes(tmp_path: Path, cli: CliRun) -> None:
    deck = tmp_path / "cloze.yaml"
    deck.write_text(
        "deck: Cloze only\nnotes:\n"
        "  - id: three\n    type: cloze\n    text: '{{c1::a}} {{c2::b}} {{c3::c}}'\n",
        encoding="utf-8",
    )
    data = json.loads(cli("preview", deck, "--json", "--days", "3").out)
    assert data["cards"] == 3
    assert data["forecast"]["new"] == [3, 0, 0]


def test_retention_changes_the_ladder(project: Path, cli: CliRun) -> None:
    low = json.loads(cli("preview", "--json", "--retention", "0.8").out)
    high = json.loads(cli("preview", "--json", "--retention", "0.97").out)
    assert low["ladder"]["good"][1] > high["ladder"]["good"][1]
    assert sum(high["forecast"]["reviews"]) > sum(low["forecast"]["reviews"])


def without_origin(text: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(text)
    data.pop("settings_from")
    data.pop("parameters_from")  # {"defaults": true} or {"given": "params"}
    return data


def test_params_as_text_or_file(project: Path, cli: CliRun) -> None:
    shown = ", ".join(str(w) for w in DEFAULT_PARAMETERS)  # as Anki's deck options show them
    default = without_origin(cli("preview", "--json").out)
    assert without_origin(cli("preview", "--json", "--params", shown).out) == default
    (project / "params.txt").write_text(shown + "\n", encoding="utf-8")
    assert without_origin(cli("preview", "--json", "--params", "params.txt").out) == default
    given = json.loads(cli("preview", "--json", "--params", "params.txt").out)
    assert given["parameters_from"] == {"given": "params"}
    assert json.loads(cli("preview", "--json").out)["parameters_from"] == {"defaults": True}
    slower = list(DEFAULT_PARAMETERS)
    slower[2] = 1.0  # initial stability after Good: 1 day
    changed = json.loads(cli("preview", "--json", "--params", ",".join(map(str, slower))).out)
    assert changed["ladder"]["good"][0] == 1


RETENTION_RANGE = "must be between 0.01 and 0.999"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--retention", "1"], f"--retention: {RETENTION_RANGE}, not 1.0"),
        (["--retention", "0"], f"--retention: {RETENTION_RANGE}, not 0.0"),
        (["--retention", "1.5"], f"--retention: {RETENTION_RANGE}, not 1.5"),
        (
            ["--retention", "90"],
            f"--retention: {RETENTION_RANGE}, not 90.0 (a retention is a share: 0.9 for 90%)",
        ),
        (["--retention", "nan"], f"--retention: {RETENTION_RANGE}, not nan"),
        (["--retention", "-inf"], f"--retention: {RETENTION_RANGE}, not -inf"),
        (["--retention", "0.0001"], f"--retention: {RETENTION_RANGE}, not 0.0001"),
        (["--retention", "1e-300"], f"--retention: {RETENTION_RANGE}, not 1e-300"),
        (
            ["--new-per-day", "-1"],
            "--new-per-day: must be between 0 and 9999 (Anki's limit), not -1",
        ),
        (
            ["--new-per-day", str(10**24)],
            f"--new-per-day: must be between 0 and 9999 (Anki's limit), not {10**24}",
        ),
        (
            ["--review-limit", "-5"],
            "--review-limit: must be between 0 and 9999 (Anki's limit), not -5",
        ),
        (
            ["--review-limit", "10000"],
            "--review-limit: must be between 0 and 9999 (Anki's limit), not 10000",
        ),
        (["--days", "-3"], "--days: must be between 1 and 3650, not -3"),
        (["--days", "0"], "--days: must be between 1 and 3650, not 0"),
        (["--days", "3651"], "--days: must be between 1 and 3650, not 3651"),
        (["--seed", "-1"], "--seed: must be 0 or more, not -1"),
        (["--seed", str(-(10**30))], f"--seed: must be 0 or more, not {-(10**30)}"),
        (
            ["--seed", "-1", "--days", "0", "--retention", "2"],
            f"--retention: {RETENTION_RANGE}, not 2.0; --days: must be between 1 and 3650, "
            "not 0; --seed: must be 0 or more, not -1",
        ),
        (["--params", "0.2,1.3,2.3"], "--params: expected 21 FSRS-6 parameters, got 3"),
        (
            ["--params", "0.2, x"],
            "--params: 'x' is not a number; expected 21 comma-separated numbers",
        ),
        (
            ["--params", "missing.txt"],
            "--params: 'missing.txt' is neither a number nor a file; expected 21 "
            "comma-separated numbers or a file holding them",
        ),
        (
            ["--params", " "],
            "--params: empty; expected 21 comma-separated numbers or a file holding them",
        ),
        (
            [
                "--params",
                ",".join(map(str, (*DEFAULT_PARAMETERS[:4], 12, *DEFAULT_PARAMETERS[5:]))),
            ],
            "--params: w[4]=12 is outside 1..10",
        ),
        (
            ["--plot", "chart.jpg"],
            "--plot: the file name must end in .svg or .png, not 'chart.jpg'",
        ),
    ],
)
def test_bad_option_values_are_one_line_errors(
    project: Path, cli: CliRun, args: list[str], message: str
) -> None:
    result = cli("preview", *args)
    assert result.code == 1
    assert result.err == f"Error: {message}\n"
    assert result.out == ""


SHOWN_PARAMETERS = ", ".join(str(w) for w in DEFAULT_PARAMETERS)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "--params: params.txt: expected 21 FSRS-6 parameters, got 0"),
        (
            ", ".join(SHOWN_PARAMETERS.split(", ")[:20]).encode(),
            "--params: params.txt: expected 21 FSRS-6 parameters, got 20",
        ),
        (
            SHOWN_PARAMETERS.replace(", 0.796, ", ",\n\n0.796x,\n").encode(),
            "--params: params.txt:3: '0.796x' is not a number; expected 21 comma-separated numbers",
        ),
        (b"\x89PNG\r\n\x1a\n\x00\xff", "--params: params.txt is not a text file (UTF-8)"),
        (
            SHOWN_PARAMETERS.encode("utf-16"),
            "--params: params.txt is not a text file (UTF-8)",
        ),
        (
            b"0.212, " * 20_000,
            "--params: params.txt is larger than 64 KB; a parameter file holds 21 numbers",
        ),
    ],
)
def test_a_params_file_that_holds_no_parameters_is_a_one_line_error(
    project: Path, cli: CliRun, content: bytes, message: str
) -> None:
    (project / "params.txt").write_bytes(content)
    result = cli("preview", "--params", "params.txt")
    assert (result.code, result.err, result.out) == (1, f"Error: {message}\n", "")


def test_params_from_a_file_with_a_byte_order_mark(project: Path, cli: CliRun) -> None:
    """Windows Notepad starts UTF-8 files with a byte order mark."""
    (project / "params.txt").write_bytes(b"\xef\xbb\xbf" + SHOWN_PARAMETERS.encode())
    result = cli("preview", "--params", "params.txt", "--days", "5")
    assert result.code == 0, result.err


def test_params_naming_a_folder_or_a_device_is_a_one_line_error(project: Path, cli: CliRun) -> None:
    (project / "weights").mkdir()
    folder = cli("preview", "--params", "weights")
    assert (folder.code, folder.err) == (
        1,
        "Error: --params: weights is a folder, not a file of parameters\n",
    )
    if Path("/dev/zero").exists():  # would never end if read
        device = cli("preview", "--params", "/dev/zero")
        assert (device.code, device.err) == (
            1,
            "Error: --params: /dev/zero is not a regular file\n",
        )


def test_an_unreadable_params_file_is_a_one_line_error(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "params.txt").write_text(SHOWN_PARAMETERS, encoding="utf-8")
    # chmod 000 does not stop root, who runs these tests in containers: refuse the read.
    original = Path.open

    def refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.name == "params.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    result = cli("preview", "--params", "params.txt")
    assert (result.code, result.err) == (
        1,
        "Error: --params: cannot read params.txt: Permission denied\n",
    )


@pytest.mark.parametrize("retention", ["0.5", "0.995"])
def test_retention_outside_ankis_range_is_previewed_with_a_warning(
    project: Path, cli: CliRun, retention: str
) -> None:
    """The study block refuses what Anki's deck options refuse; on the command line such
    a retention is a what-if: previewed, with a warning."""
    result = cli("preview", "--json", "--days", "5", "--retention", retention)
    assert result.code == 0, result.err
    assert json.loads(result.out)["settings"]["desired_retention"] == float(retention)
    assert result.err == (
        f"Warning: --retention {retention} is outside 0.70 to 0.99, the range Anki's deck "
        "options accept; Anki will not schedule with it\n"
    )


@pytest.mark.parametrize("retention", ["0.7", "0.99"])
def test_retention_within_ankis_range_has_no_warning(
    project: Path, cli: CliRun, retention: str
) -> None:
    result = cli("preview", "--days", "5", "--retention", retention)
    assert (result.code, result.err) == (0, "")


@pytest.mark.parametrize(("option", "name"), [("--plot", "chart.svg"), ("--html-out", "page.html")])
def test_an_output_named_like_a_folder_leaves_the_folder_alone(
    project: Path, cli: CliRun, option: str, name: str
) -> None:
    (project / name).mkdir()
    (project / name / "keep.txt").write_text("mine", encoding="utf-8")
    result = cli("preview", "--days", "5", option, name)
    assert result.code == 1
    assert result.err == f"Error: {option}: {name} is a folder; give the name of a file to write\n"
    assert (project / name / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_html_out_to_an_unwritable_place_is_a_one_line_error(project: Path, cli: CliRun) -> None:
    (project / "blocker").write_text("a file, not a folder", encoding="utf-8")
    result = cli("preview", "--days", "5", "--html-out", "blocker/page.html")
    assert result.code == 1
    assert result.err.startswith("Error: --html-out: cannot write blocker/page.html: ")
    assert len(result.err.splitlines()) == 1


def test_plot_svg(project: Path, cli: CliRun) -> None:
    result = cli("preview", "--plot", "out/forecast.svg", "--days", "90", "--lang", "en")
    assert result.code == 0, result.err
    assert result.out.splitlines()[-1] == "wrote out/forecast.svg"
    as_json = cli("preview", "--plot", "out/f.svg", "--lang", "en", "--json")
    assert json.loads(as_json.out)["charts"] == ["out/f.svg"]
    svg = (project / "out" / "forecast.svg").read_text(encoding="utf-8")
    root = ElementTree.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    # Text is drawn as glyph outlines; matplotlib keeps each text as a comment beside them.
    assert "<!-- ML Systems::Gradient Checkpointing: " in svg
    assert "<!-- 90 -->" in svg  # the last day on the axis
    ids = {element.get("id") for element in root.iter()}
    assert {"reviews", "new", "minutes", "memorized"} <= ids
    cli("preview", "--plot", "again.svg", "--days", "90", "--lang", "en")
    assert (project / "again.svg").read_text(encoding="utf-8") == svg


def test_plot_to_an_unwritable_place_is_a_one_line_error(project: Path, cli: CliRun) -> None:
    (project / "blocker").write_text("a file, not a folder", encoding="utf-8")
    result = cli("preview", "--plot", "blocker/chart.svg")
    assert result.code == 1
    assert result.err.startswith("Error: --plot: cannot write blocker/chart.svg: ")
    assert len(result.err.splitlines()) == 1


def test_plot_png(project: Path, cli: CliRun) -> None:
    from PIL import Image

    result = cli("preview", "--plot", "forecast.png")
    assert result.code == 0, result.err
    with Image.open(project / "forecast.png") as image:
        # Four rows of panels: the first 60 days, then cards, minutes and memorized.
        assert image.size == (900, 60 + 4 * 200)
        colours = {colour[:3] for _, colour in image.convert("RGBA").getcolors(1 << 20)}
    assert (59, 110, 165) in colours  # review bars
    assert (60, 140, 90) in colours  # minutes and memorized lines


def test_build_prints_the_preview_summary_before_writing(project: Path, cli: CliRun) -> None:
    result = cli("build")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    preview = [i for i, line in enumerate(lines) if line.startswith("preview ")]
    wrote = [i for i, line in enumerate(lines) if "wrote " in line]
    assert preview and wrote and preview[-1] < wrote[0]
    assert len(preview) == 2  # one per language
    for at, name in zip(
        preview,
        ["ML 시스템::그래디언트 체크포인팅", "ML Systems::Gradient Checkpointing"],
        strict=True,
    ):
        assert re.match(
            rf"preview {name}: {BUNDLED_CARDS} cards; peak \d+\.\d reviews a day \(day \d+\), "
            r"\d+\.\d minutes a day \(day \d+\); days 1-14: \d+\.\d reviews, \d+\.\d minutes "
            r"a day on average; \d+\.\d minutes a day over 365 days; all introduced by day 3; "
            rf"\d+\.\d of {BUNDLED_CARDS} memorized on day 365$",
            lines[at],
        ), lines[at]
    quiet = cli("build", "--no-preview")
    assert quiet.code == 0
    assert not any(line.startswith("preview ") for line in quiet.out.splitlines())


def test_build_forecasts_a_bilingual_deck_once(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both languages have the same cards and settings: one forecast, the same summary."""
    from deckbuilder.preview import report as preview

    calls: list[int] = []
    original = preview.build_summary

    def counted(cards: int, settings: object) -> object:
        calls.append(cards)
        return original(cards, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(preview, "build_summary", counted)
    result = cli("build")
    assert result.code == 0, result.err
    assert calls == [BUNDLED_CARDS]
    summaries = [
        line.split(": ", 1)[1] for line in result.out.splitlines() if line.startswith("preview ")
    ]
    assert len(summaries) == 2 and summaries[0] == summaries[1]


def test_help_has_an_example(cli: CliRun) -> None:
    result = cli("preview", "--help")
    assert result.code == 0
    assert "Example: deckbuilder preview cards/ --new-per-day 10" in result.out
    assert "--no-preview" in cli("build", "--help").out


def test_cli_import_stays_light() -> None:
    """numpy and py-fsrs load only when the preview runs."""
    code = "import sys, deckbuilder.cli; print(sorted({'numpy', 'fsrs'} & set(sys.modules)))"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_html_warns_about_math_the_page_cannot_typeset(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "m.yaml").write_text(
        "deck: Math\nid: math\nnotes:\n  - id: a\n    front: What is \\(\\arg\\max_x f\\)?\n"
        "    back: \\(x^2\\)\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = cli("preview", "--html")
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        "cards/m.yaml:4: note 'a': warning [untypeset-math]: the preview page shows \\(\\arg\\max_x f\\) as TeX: "
        "it cannot typeset it (Anki can, with MathJax)"
    ]
    assert "wrote output/math.html" in result.out


def test_one_card_and_one_day_are_said_in_the_singular(tmp_path: Path, cli: CliRun) -> None:
    """A one-card deck's preview said "1 cards" and "0.9 of 1 cards"; a one-day forecast
    "1 days"; build's preview line "1 cards"."""
    source = tmp_path / "cards" / "one.yaml"
    source.parent.mkdir()
    source.write_text(
        "deck: One\nid: one\nnotes:\n  - id: a\n    front: Mars\n    back: the fourth planet\n",
        encoding="utf-8",
    )
    page = tmp_path / "one.html"
    shown = cli("preview", source, "--days", "1", "--sweep", "--html-out", page)
    assert shown.code == 0, shown.err
    built = cli("build", source, "--out", tmp_path / "out")
    assert built.code == 0, built.err
    assert "preview One: 1 card;" in built.out
    for text in (shown.out, built.out, page.read_text(encoding="utf-8")):
        assert not re.search(r"\b1 (cards|days)\b", text), re.findall(
            r".{30}\b1 (?:cards|days)\b", text
        )
    assert "1 day" in shown.out and "of 1 card" in shown.out
