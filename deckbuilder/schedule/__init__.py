"""FSRS scheduler preview: the interval ladder of a new card and a workload forecast.

Pure functions: settings in, numbers out; randomness comes from a seed parameter.

- :mod:`.settings`: how the deck is studied (FSRS parameters, deck options, habits)
- :mod:`.ladder`: a new card's successive intervals, from py-fsrs
- :mod:`.forecast`: the expected workload per day, and its summary
- :mod:`.simulation`: the forecast's vectorised simulation, built on :mod:`.memory`
  (FSRS formulas on arrays), :mod:`.answers` (the learner's ratings) and
  :mod:`.balancer` (Anki's load balancer)

Importing this package stays light: NumPy and py-fsrs are imported when a forecast or a
ladder is computed.
"""

from __future__ import annotations

from deckbuilder.schedule.forecast import Forecast, Load, Peak, Summary, forecast, summarize
from deckbuilder.schedule.ladder import Ladder, ladder
from deckbuilder.schedule.settings import (
    DEFAULT_PARAMETERS,
    LOWER_BOUNDS,
    UPPER_BOUNDS,
    PreviewSettings,
    ReviewBehaviour,
    SettingProblem,
    StudyBlock,
    parse_parameters,
)

__all__ = [
    "DEFAULT_PARAMETERS",
    "LOWER_BOUNDS",
    "UPPER_BOUNDS",
    "Forecast",
    "Ladder",
    "Load",
    "Peak",
    "PreviewSettings",
    "ReviewBehaviour",
    "SettingProblem",
    "StudyBlock",
    "Summary",
    "forecast",
    "ladder",
    "parse_parameters",
    "summarize",
]
