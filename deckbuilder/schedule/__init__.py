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
    from deckbuilder.deck_options import (
        DEFAULT_PARAMETERS,
        LOWER_BOUNDS,
        UPPER_BOUNDS,
        parse_parameters,
    )
    from deckbuilder.schedule.intervals import Ladder, ladder
    from deckbuilder.schedule.settings import PreviewSettings, ReviewBehaviour
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
    "Summary",
    "forecast",
    "ladder",
    "parse_parameters",
    "summarize",
]

# FSRS-6's defaults, bounds and text form are the core's (deckbuilder.deck_options), named
# here too as the settings the engine studies with.
_MODULES = {
    "DEFAULT_PARAMETERS": "deckbuilder.deck_options",
    "LOWER_BOUNDS": "deckbuilder.deck_options",
    "UPPER_BOUNDS": "deckbuilder.deck_options",
    "parse_parameters": "deckbuilder.deck_options",
    "Forecast": f"{__name__}.workload",
    "Load": f"{__name__}.workload",
    "Peak": f"{__name__}.workload",
    "Summary": f"{__name__}.workload",
    "forecast": f"{__name__}.workload",
    "summarize": f"{__name__}.workload",
    "Ladder": f"{__name__}.intervals",
    "ladder": f"{__name__}.intervals",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_MODULES.get(name, f"{__name__}.settings")), name)
