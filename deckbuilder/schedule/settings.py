"""How a deck will be studied: FSRS parameters, Anki's deck options and a learner's habits.

These settings drive both the interval ladder and the forecast.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from deckbuilder.deck_options import default_parameters
from deckbuilder.model import StudySettings


@dataclass(frozen=True)
class ReviewBehaviour:
    """How a typical learner answers, and how long it takes: Anki's simulator defaults.

    Ratings are indexed Again, Hard, Good, Easy. Costs are seconds per answer in the
    learning, review and relearning states. ``*_step_transitions[i]`` is the distribution
    of the next same-day rating after rating ``i`` (Again, Hard, Good) during steps.
    """

    first_rating: tuple[float, float, float, float] = (0.24, 0.094, 0.495, 0.171)
    review_rating: tuple[float, float, float] = (0.224, 0.631, 0.145)  # Hard, Good, Easy
    learning_costs: tuple[float, float, float, float] = (19.58, 18.79, 13.78, 10.71)
    review_costs: tuple[float, float, float, float] = (19.38, 17.59, 12.38, 8.94)
    relearning_costs: tuple[float, float, float, float] = (16.44, 15.25, 12.32, 8.03)
    learning_step_transitions: tuple[tuple[float, float, float, float], ...] = (
        (0.3686, 0.0628, 0.5108, 0.0577),
        (0.0442, 0.4553, 0.4457, 0.0549),
        (0.0519, 0.047, 0.8462, 0.055),
    )
    relearning_step_transitions: tuple[tuple[float, float, float, float], ...] = (
        (0.2157, 0.0643, 0.6595, 0.0604),
        (0.05, 0.4638, 0.4475, 0.0387),
        (0.1057, 0.1434, 0.7266, 0.0244),
    )


@dataclass(frozen=True)
class PreviewSettings:
    """How the deck will be studied: its study settings (Anki's deck options that shape
    the workload; steps in seconds, only their count matters to the day-level forecast),
    the FSRS parameters the preview studies with (the study block's own ``parameters`` and
    ``history`` only say where a deck's come from), and what Anki's preferences and a
    typical learner add. ``load_balancer`` is Anki's preference of that name (on in a
    fresh collection). The values are checked where they are given (the card file, the
    request), against :mod:`deckbuilder.deck_options`.
    """

    study: StudySettings = field(default_factory=StudySettings)
    parameters: tuple[float, ...] = field(default_factory=default_parameters)
    new_cards_ignore_review_limit: bool = False
    load_balancer: bool = True
    behaviour: ReviewBehaviour = field(default_factory=ReviewBehaviour)

    def with_new_per_day(self, new_per_day: int) -> PreviewSettings:
        """A copy that learns ``new_per_day`` new cards a day (what an exam plan tries)."""
        return replace(self, study=replace(self.study, new_per_day=new_per_day))
