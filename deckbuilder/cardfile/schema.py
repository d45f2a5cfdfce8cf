"""The JSON Schema of the card format, for editors (completion, inline errors) and tools.

Built from the declaration of every key (:mod:`.keys`): each key's range, pattern,
default and documentation, and the schema of its shape (:data:`.shapes.SHAPES`). The loader is the authority on what loads; a property test
holds the two together (what this schema accepts loads, what loads this schema accepts),
and lists what JSON Schema cannot say (an answer letter beyond the choices, two notes
with one id...). Draft-07, which yaml-language-server and most editors understand best.
"""

from __future__ import annotations

from typing import Any

from deckbuilder.cardfile.keys import DECK
from deckbuilder.cardfile.shapes import mapping_schema

SCHEMA_ID = "https://deckbuilder.invalid/card-file.schema.json"

EXAMPLES: list[dict[str, Any]] = [
    {
        "deck": "ML Systems::Gradient Checkpointing",
        "id": "gradient-checkpointing",
        "description": "Trading recomputation for activation memory.",
        "tags": ["ml-systems"],
        "study": {
            "new_per_day": 10,
            "review_limit": 100,
            "desired_retention": 0.9,
            "learning_steps": ["1m", "10m"],
        },
        "notes": [
            {
                "id": "tradeoff",
                "type": "mcq",
                "question": "What does gradient checkpointing mainly trade for lower memory?",
                "choices": ["Extra computation (recomputation)", "Model accuracy", "Disk space"],
                "answer": "A",
                "explanation": "Activations are recomputed during the backward pass.",
                "shuffle": True,
                "tags": ["basics"],
            },
            {
                "id": "which-prime",
                "question": "Which of these are prime?",
                "choices": [
                    "2",
                    {"text": "4", "feedback": "4 = 2 * 2."},
                    "5",
                ],
                "answer": ["A", "C"],
            },
            {
                "id": "sqrt-schedule",
                "type": "cloze",
                "text": "Checkpoints every {{c1::√N}} layers give {{c2::O(√N)::memory?}} memory.",
                "extra": "Shown on the back.",
            },
            {"id": "term", "type": "basic", "front": "Activation", "back": "A layer's output."},
        ],
    },
    {
        "deck": {"ko": "ML 시스템::체크포인팅", "en": "ML Systems::Checkpointing"},
        "id": "checkpointing",
        "languages": ["ko", "en"],
        "notes": [
            {
                "id": "tradeoff",
                "question": {
                    "ko": "그래디언트 체크포인팅은 무엇을 치르고 메모리를 아낍니까?",
                    "en": "What does gradient checkpointing trade for lower memory?",
                },
                "choices": [
                    {"ko": "추가 계산", "en": "Extra computation"},
                    {
                        "text": {"ko": "정확도", "en": "Accuracy"},
                        "feedback": {
                            "ko": "정확도는 그대로입니다.",
                            "en": "Accuracy stays the same.",
                        },
                    },
                    "`torch.optim.SGD`",
                ],
                "answer": "A",
            },
            {
                "id": "store",
                "text": {
                    "ko": "활성화는 {{c1::역전파}}에 필요하다.",
                    "en": "Activations are needed by {{c1::backpropagation}}.",
                },
            },
        ],
    },
]


def card_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a deckbuilder card file."""
    schema = mapping_schema(DECK, "One Anki deck of quiz cards, built with `deckbuilder build`.")
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "deckbuilder card file",
        **schema,
        # The cards of a deck with 'languages' show each language's own labels.
        "dependencies": {
            "languages": {
                "properties": {
                    "label_language": {
                        "description": "Not in a deck with 'languages'.",
                        "const": None,
                    }
                }
            }
        },
        "examples": EXAMPLES,
    }
