"""FSRS scheduler preview: the interval ladder of a new card and a workload forecast.

Pure functions: settings in, numbers out; randomness comes from a seed parameter.

- :mod:`.settings`: how the deck is studied (FSRS parameters, deck options, habits)
- :mod:`.intervals`: the interval ladder, a new card's successive intervals, from py-fsrs
- :mod:`.workload`: the forecast, the expected workload per day, and its summary
- :mod:`.sweep`: the forecast at every desired retention, and the optimal one
- :mod:`.exam`: the new cards a day an exam date needs
- :mod:`.simulation`: the forecasts' vectorised simulation, built on :mod:`.memory`
  (FSRS formulas on arrays), :mod:`.answers` (the learner's ratings), :mod:`.draws`
  (their random numbers) and :mod:`.balancer` (Anki's load balancer)

Importing this package stays light: ``check`` reads the settings of a card file's study
block without NumPy or py-fsrs, so the names below are loaded from their modules when
first used (as py-fsrs loads its optimizer).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deckbuilder.schedule.intervals import Ladder, ladder
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
    from deckbuilder.schedule.workload import Forecast, Load, Peak, Summary, forecast, summarize

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

_MODULES = {
    "Forecast": "workload",
    "Load": "workload",
    "Peak": "workload",
    "Summary": "workload",
    "forecast": "workload",
    "summarize": "workload",
    "Ladder": "intervals",
    "ladder": "intervals",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULES.get(name, 'settings')}"), name)
