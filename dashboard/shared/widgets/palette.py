"""One colour per scheme, method and noise method, on every chart of the dashboard.

Charts take their colours from :func:`color` so a scheme keeps its colour from one chart to
the next (the CDP-LR bars and the curve beneath them, Fig. 4 and Fig. 6, ...). Names not
listed get a stable colour from a fallback cycle, keyed on the name, so an unknown name
still keeps one colour everywhere. No streamlit here: the chart builders import it.
"""
from __future__ import annotations

import zlib

__all__ = ["COLORS", "NOISE_METHOD_LABELS", "color", "colors", "noise_method_label", "EPSILON_TICKS",
           "log_ticks"]

# Okabe-Ito based (colour-blind safe), extended with a few distinct tones
_BLUE, _ORANGE, _GREEN, _RED = "#0072B2", "#E69F00", "#009E73", "#D55E00"
_PURPLE, _SKY, _YELLOW, _GREY, _BLACK = "#CC79A7", "#56B4E9", "#B8A100", "#7F7F7F", "#222222"
_BROWN, _TEAL = "#8C564B", "#17BECF"

COLORS: dict[str, str] = {
    # paper 000 schemes (CDP-LR, Publishing)
    "Non-private": _GREY,
    "Group": _ORANGE,
    "Zhang": _BLUE,
    "Proposed": _RED,
    # paper 003 methods (SSKM_DP baselines)
    "SSKM_DP": _RED,
    "MDAV": _GREY,
    "MDAV_DP": _BLUE,
    "IDP-KMeans": _GREEN,
    # SSKM_DP modes
    "sound": _GREEN,
    "paper": _PURPLE,
    # paper 002
    "IMPOSTER": _RED,
    "kRR": _BLUE,
    # noise methods of Table 3 (paper 000), keyed "0".."6", and "7" (beyond the paper)
    "0": _GREY,
    "1": _RED,
    "2": _BLUE,
    "3": _ORANGE,
    "4": _BROWN,
    "5": _PURPLE,
    "6": _GREEN,
    "7": _TEAL,
    # beyond the papers: the ordinary-DP baseline on the CDP-LR page ("DP-SGD (ordinary DP)")
    "DP-SGD": _BLACK,
    # the Compare page's references and releases (core.compare.registry.METHODS) not named above
    "Raw table": _BLACK,
    "VAE-GAN": _PURPLE,
    "CDP-LR": _TEAL,
    "Logistic regression": _GREY,
    "SSKM_DP (paper)": _YELLOW,
}

_FALLBACK = (_TEAL, _SKY, _YELLOW, _BLACK, "#9467BD", "#BCBD22", "#E377C2", "#1F3A93")

#: Legend names of the noise methods of Table 3 (paper 000).
NOISE_METHOD_LABELS = {
    0: "0: no noise (not DP)",
    1: "1: Laplace on the mean gradient",
    2: "2: Gaussian on the mean gradient",
    3: "3: Laplace on the summed gradient",
    4: "4: Laplace on N only (not DP)",
    5: "5: Laplace on the summed gradient and on N",
    6: "6: output perturbation",
    7: "7: Gaussian, PLD accounting (not in the paper)",
}

#: Ticks of a log epsilon axis: 1-2-5 steps, read as plain numbers.
EPSILON_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)


def _base(name: object) -> str:
    """The palette key of ``name``: 'Zhang (pearson)' -> 'Zhang', 3 -> '3'."""
    text = str(name)
    if text in COLORS:
        return text
    head = text.split(" (", 1)[0].strip()
    return head


def color(name: object) -> str:
    """The colour of a scheme, method or noise method (an int 0-7 or its name)."""
    key = _base(name)
    if key in COLORS:
        return COLORS[key]
    return _FALLBACK[zlib.crc32(key.encode("utf-8")) % len(_FALLBACK)]


def colors(names) -> list[str]:
    """:func:`color` of each name, in order."""
    return [color(n) for n in names]


def noise_method_label(method: int) -> str:
    """'1: Laplace on the mean gradient' for the legend of Fig. 5."""
    return NOISE_METHOD_LABELS.get(int(method), f"method {int(method)}")


def log_ticks(values) -> dict:
    """tickvals / ticktext for a log axis spanning ``values``: 1-2-5 steps as plain numbers.

    Plotly's own log ticks label minor steps with their leading digit only ("5, 0.1, 2, 5,
    1"); these read 0.1, 0.2, 0.5, 1, 2, 5, 10.
    """
    vals = [float(v) for v in values if v is not None and float(v) > 0]
    if not vals:
        return {}
    lo, hi = min(vals), max(vals)
    ticks = [t for t in EPSILON_TICKS if lo * 0.999 <= t <= hi * 1.001]
    if len(ticks) < 2:
        ticks = sorted(set(vals))
    return dict(tickmode="array", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
