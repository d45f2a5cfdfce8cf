"""Rich card content through the real Anki backend: what a reviewer's Anki would show."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from tests.app_calls import build_packages
from tests.conftest import DATA, ROOT, copied, import_package

pytestmark = pytest.mark.anki

RICH = DATA / "rich"


@pytest.fixture
def rich(tmp_path: Path, collection: Any) -> dict[str, Any]:
    """The rich deck built and imported into a fresh collection; notes by note id."""
    (result,) = build_packages(
        [copied(RICH, tmp_path) / "rich.yaml"],
        tmp_path / "out",
        timestamp=1_700_000_000,
        media_dir=RICH / "media",
    )
    log = import_package(collection, result.path)
    assert len(log.new) == 4 and not log.conflicting
    by_guid = {
        collection.get_note(nid).guid: collection.get_note(nid) for nid in collection.find_notes("")
    }
    ids = ("html-looking", "display-math", "cloze-code", "cloze-in-block")
    return {i: by_guid[note_guid("rich", i)] for i in ids}


def body(html: str) -> str:
    """The card HTML without the note type's <style> block."""
    return re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL)


def cloze_card(note: Any, ordinal: int) -> Any:
    return next(c for c in note.cards() if c.ord == ordinal - 1)


def test_html_looking_text_is_shown_literally_and_no_card_script_runs(rich: dict[str, Any]) -> None:
    card = rich["html-looking"].cards()[0]
    template = card.note_type()["tmpls"][0]
    for html, side in ((card.question(), "qfmt"), (card.answer(), "afmt")):
        shown = body(html)
        assert "Which is true when a &lt; b &amp;&amp; c &gt; d?" in shown
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
        # The only scripts are the note type's own, and no handler or javascript: URL survives.
        assert shown.count("<script") == template[side].count("<script")
        assert "alert(" not in shown.replace("&lt;script&gt;alert(1)", "")
        assert "onclick" not in shown and "javascript:" not in shown
        assert "<b>bold</b>" in shown and "<kbd>Ctrl</kbd>" in shown


def test_highlighted_code_and_table_reach_the_answer(rich: dict[str, Any]) -> None:
    answer = body(rich["html-looking"].cards()[0].answer())
    assert '<pre class="highlight"><code><span class="kn">from</span>' in answer
    assert (
        '<span class="k">def</span><span class="w"> </span><span class="nf">forward</span>'
        in answer
    )
    assert '<span class="kc">False</span>' in answer
    assert '<th style="text-align:right">memory</th>' in answer
    css = rich["html-looking"].note_type()["css"]
    assert (
        ".highlight .k {" in css and ".nightMode .highlight .k, .night_mode .highlight .k {" in css
    )


def test_math_delimiters_reach_anki_untouched(rich: dict[str, Any]) -> None:
    mcq = rich["html-looking"].cards()[0]
    assert "\\(a_1 * b_2\\) is smaller" in mcq.question()
    assert '<td style="text-align:right">\\(O(\\sqrt{N})\\)</td>' in mcq.answer()
    basic = rich["display-math"].cards()[0]
    assert "What is\n\\[\\sum_{i=1}^n x_i\\]\nfor <code>x = [1, 2]</code>?" in basic.question()
    extra = body(cloze_card(rich["cloze-code"], 1).answer())
    assert '<div class="db-extra">\\(a_1 * b_2\\)</div>' in extra


def test_images_and_sound_from_both_media_roots(rich: dict[str, Any], collection: Any) -> None:
    card = rich["display-math"].cards()[0]
    assert '<img src="diagram.png" alt="the diagram">' in card.question()
    assert '<img src="beside.png" alt="beside the card file">' in card.answer()
    assert [tag.filename for tag in card.question_av_tags()] == ["beep.mp3"]
    assert "[anki:play:q:0]" in card.question()
    media = Path(collection.media.dir())
    assert sorted(p.name for p in media.iterdir()) == ["beep.mp3", "beside.png", "diagram.png"]
    assert (media / "beside.png").read_bytes() == (RICH / "beside.png").read_bytes()
    check = collection.media.check()
    assert list(check.missing) == [] and list(check.unused) == []
    assert collection.fix_integrity() == ("Database rebuilt and optimized.", True)


def test_code_in_a_non_cloze_field_is_not_a_template(rich: dict[str, Any]) -> None:
    """Anki expands {{Field}} in templates only, never inside a field's text."""
    back = body(rich["display-math"].cards()[0].answer())
    assert "<li>item with <code>{{Back}}</code> in code</li>" in back
    assert "<li><code>[sound&#58;beep.mp3]</code> in code is shown, not played</li>" in back
    # Only the front's sound plays on the back (the template repeats the front).
    assert [tag.filename for tag in rich["display-math"].cards()[0].answer_av_tags()] == [
        "beep.mp3"
    ]


@pytest.mark.parametrize(
    ("ordinal", "asked", "revealed"),
    [
        # A deletion whose answer is inline code.
        (
            1,
            "Wrap the block in",
            '<span class="cloze" data-ordinal="1"><code>torch.utils.checkpoint</code></span>',
        ),
        # '::' inside code does not start a hint.
        (
            2,
            "in C++ it is",
            '<span class="cloze" data-ordinal="2"><code>std:&#58;vector</code></span>',
        ),
        # '}}' inside math does not end the deletion.
        (
            3,
            "the formula is",
            '<span class="cloze" data-ordinal="3">\\(\\frac{1}{x^{2}&#125;\\)</span>',
        ),
        (4, "or", '<span class="cloze" data-ordinal="4">\\(x^2\\)</span>'),
    ],
)
def test_clozes_around_code_and_math(
    rich: dict[str, Any], ordinal: int, asked: str, revealed: str
) -> None:
    card = cloze_card(rich["cloze-code"], ordinal)
    question, answer = body(card.question()), body(card.answer())
    hint = "[a power :: of x]" if ordinal == 4 else "[...]"
    assert re.search(
        rf'{re.escape(asked)} <span class="cloze"[^>]*>{re.escape(hint)}</span>', question
    )
    assert revealed in answer
    # Nothing of the deletion leaks: no stray '}}' or '::' after Anki's own markup.
    assert "}}" not in question.replace("<code>{{</code>", "")
    assert "a code span can hold <code>{{</code> literally." in answer


def test_cloze_inside_a_highlighted_code_block(rich: dict[str, Any]) -> None:
    card = rich["cloze-in-block"].cards()[0]
    question, answer = body(card.question()), body(card.answer())
    assert re.search(
        r'<span class="o">=</span> <span class="cloze"[^>]*>\[\.\.\.\]</span><span class="p">\(</span>',
        question,
    )
    assert (
        '<span class="cloze" data-ordinal="1"><span class="n">checkpoint</span></span>'
        '<span class="p">(</span>' in answer
    )


def test_bundled_deck_shows_highlighted_code_and_math(tmp_path: Path, collection: Any) -> None:
    (result,) = build_packages(
        [copied(ROOT / "cards", tmp_path)],
        tmp_path / "out",
        timestamp=1_700_000_000,
        media_dir=ROOT / "media",
        lang="en",
    )
    import_package(collection, result.path)
    notes = {collection.get_note(n).guid: collection.get_note(n) for n in collection.find_notes("")}
    pytorch = notes[note_guid("gradient-checkpointing.en", "pytorch-utility")].cards()[0]
    answer = body(pytorch.answer())
    assert '<pre class="highlight"><code><span class="kn">from</span>' in answer
    assert (
        '<span class="n">checkpoint</span><span class="p">(</span><span class="n">block</span>'
        in answer
    )
    assert '<pre class="highlight">' not in body(
        pytorch.question()
    )  # the explanation is on the back
    sqrt = notes[note_guid("gradient-checkpointing.en", "cloze-sqrt")]
    c2 = cloze_card(sqrt, 2)
    assert '<span class="cloze" data-ordinal="2">\\(O(\\sqrt{N})\\)</span>' in c2.answer()
    assert 'memory from \\(O(N)\\) to <span class="cloze"' in c2.question()
    check = collection.media.check()
    assert list(check.missing) == [] and list(check.unused) == []
