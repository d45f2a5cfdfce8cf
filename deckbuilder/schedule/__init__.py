"""FSRS scheduler preview: the interval ladder of a new card and a workload forecast.

Pure functions: settings in, numbers out; randomness comes from a seed parameter.

- :mod:`.settings`: how the deck is studied (FSRS parameters, deck options, habits)
- :mod:`.intervals`: the interval ladder, a new card's successive intervals, from py-fsrs
- :mod:`.workload`: the forecast, the expected workload per day, and its summary
- :mod:`.sweep`: the forecast at every desired retention, and the optimal one
- :mod:`.exam`: the new cards a day an exam date needs
- :mod:`.simulation`: the forecasts' vectorised simulation, built on :mod:`.memory`
  (FSRS formulas on arrays), :mod:`.answers` (the learner's ratings and the random
  numbers they are drawn with) and :mod:`.balancer` (Anki's load balancer)

Importing this package stays light: ``check`` reads the settings of a card file's study
block without NumPy or py-fsrs, so the names below are loaded from their modules when
first used (as py-fsrs loads its optimizer).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# The names this package offers, by the module that defines them, which is imported when
# one of its names is first asked for. FSRS-6's defaults, bounds and text form are the
# core's (deckbuilder.deck_options), named here too as the settings the engine studies with.
_PARTS = {
    "deckbuilder.deck_options": (
        "DEFAULT_PARAMETERS",
        "LOWER_BOUNDS",
        "UPPER_BOUNDS",
        "parse_parameters",
    ),
    f"{__name__}.settings": ("PreviewSettings", "ReviewBehaviour"),
    f"{__name__}.intervals": ("Ladder", "ladder"),
    f"{__name__}.workload": ("Forecast", "Load", "Peak", "Summary", "forecast", "summarize"),
}
_MODULES = {name: module for module, names in _PARTS.items() for name in names}
__all__ = list(_MODULES)


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_MODULES[name]), name)
