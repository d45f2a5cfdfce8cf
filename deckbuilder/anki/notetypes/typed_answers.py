"""How a typed-answer note's accepted answers travel to the card: the Answers field.

Each accepted answer is one element of the field, which only the back of the card holds
(the front's HTML is the question Anki's browser lists, so it must not give the answers
away); typed.js on the back reads them there and judges what the learner typed into the
field's ``{{type:Answers}}`` box:

    <div class="db-accept">no one</div>
    <div class="db-accept" data-min="3.141" data-max="3.142">3.141 to 3.142</div>
    <div class="db-accept" data-min="500.0" data-max="500.0" data-unit="mg">500 mg</div>

A text answer is the element's text (escaped HTML, read back with textContent, so no
character needs a second escaping in an attribute); a number is the closed range in
``data-min``/``data-max`` (Python's shortest round-trip form, which JavaScript's
``Number()`` reads back to the same double), its unit in ``data-unit`` (typed after the
number or not), and its text is only what the back shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from deckbuilder.model import TypedAnswer


def typed_answers_html(answers: Sequence[TypedAnswer], attributes: str = "") -> str:
    """The Answers field; ``attributes`` go on every element (the deck's language)."""
    out = []
    for answer in answers:
        if answer.is_number:
            assert answer.low is not None and answer.high is not None
            unit = f' data-unit="{escape(answer.unit)}"' if answer.unit else ""
            out.append(
                f'<div class="db-accept" data-min="{answer.low!r}" data-max="{answer.high!r}"'
                f"{unit}{attributes}>{escape(answer.shown_with_unit, quote=False)}</div>"
            )
        else:
            out.append(
                f'<div class="db-accept"{attributes}>{escape(answer.text, quote=False)}</div>'
            )
    return "\n".join(out)
