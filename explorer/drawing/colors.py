"""One colour and one second cue per mapping, the same on every page.

Colours: mid-luminance, each at least 3:1 against both the light (#FFFFFF) and the dark
(#171614) Streamlit background (WCAG 2.1 non-text contrast, 1.4.11; tests/test_a11y.py computes
the ratios), so no yellow, no near-white, no near-black.

Second cue (WCAG 1.4.1, use of colour): :func:`mapping_cue` gives each mapping a line dash (an SVG
``stroke-dasharray``) and a marker symbol, :func:`bar_pattern` a bar fill pattern, so that two
mappings differ in grey scale too.
"""

from __future__ import annotations

MAPPING_COLORS = {
    "softmax": "#4C78A8",
    "taylor_softmax": "#DD720A",
    "sparse_softmax": "#53A04A",
    "sparsemax": "#E45756",
    "entmax15": "#B279A2",
    "entmax": "#2A9E9C",
    "perturbmax": "#9D755D",
    "gumbel_softmax": "#DE60B8",
    "am_softmax": "#949428",
}
# Mappings added to the registry later get one of these (stable per name).
_SPARE = ("#6F8FCF", "#D4782F", "#3E9E7E", "#C05780", "#8C8C8C")

# Curves that are not a registry mapping (binary-loss comparison, alpha = inf limit).
EXTRA_COLORS = {
    "hinge": "#8C8C8C",
    "logistic": "#4C78A8",
    "modified_huber": "#E45756",
    "argmax": "#8C8C8C",
}
# alpha-entmax at these alpha is a mapping of its own: its curves take that mapping's colour and cue
ALPHA_MAPPINGS = {1.0: "softmax", 1.5: "entmax15", 2.0: "sparsemax"}
BACKGROUNDS = {"light": "#FFFFFF", "dark": "#171614"}  # Streamlit 1.67's two themes' backgrounds

# mapping -> (SVG stroke-dasharray at a line width of about 2 px, Plotly marker symbol)
MAPPING_CUES = {
    "softmax": ("none", "circle"),
    "taylor_softmax": ("2,3", "square"),
    "sparse_softmax": ("8,4", "diamond"),
    "sparsemax": ("14,5", "triangle-up"),
    "entmax15": ("8,3,2,3", "triangle-down"),
    "entmax": ("14,4,2,4", "hexagon"),
    "perturbmax": ("10,3,2,3,2,3", "star"),
    "gumbel_softmax": ("5,5", "cross"),
    "am_softmax": ("3,2", "x"),
}
_SPARE_CUES = (("12,3,3,3,3,3", "circle"), ("1,3", "square"), ("16,6", "diamond"))
# mapping -> (Plotly bar pattern shape, solidity): a fill that tells bars apart without colour
BAR_PATTERNS = {
    "softmax": ("", 0.3),
    "taylor_softmax": (".", 0.3),
    "sparse_softmax": ("/", 0.3),
    "sparsemax": ("\\", 0.3),
    "entmax15": ("x", 0.3),
    "entmax": ("-", 0.3),
    "perturbmax": ("|", 0.3),
    "gumbel_softmax": ("+", 0.3),
    "am_softmax": ("x", 0.6),
}
_SPARE_PATTERNS = ((".", 0.6), ("/", 0.6), ("\\", 0.6))


def _stable(name: str, choices: tuple):
    return choices[sum(map(ord, name)) % len(choices)]


def mapping_color(name: str) -> str:
    """The colour of mapping ``name`` (a spare colour, stable per name, for unknown ones)."""
    return MAPPING_COLORS.get(name) or _stable(name, _SPARE)


def mapping_cue(name: str) -> dict[str, str]:
    """The non-colour cue of mapping ``name``: {"dash": SVG stroke-dasharray ("none": solid),
    "marker": Plotly marker symbol} (a spare one, stable per name, for unknown mappings)."""
    dash, marker = MAPPING_CUES.get(name) or _stable(name, _SPARE_CUES)
    return {"dash": dash, "marker": marker}


def plotly_dash(name: str) -> str:
    """Mapping ``name``'s dash as Plotly's ``line.dash`` ("solid", or the dasharray itself)."""
    dash = mapping_cue(name)["dash"]
    return "solid" if dash == "none" else dash


def bar_pattern(name: str) -> dict:
    """Mapping ``name``'s bar fill as Plotly's ``marker.pattern``."""
    shape, solidity = BAR_PATTERNS.get(name) or _stable(name, _SPARE_PATTERNS)
    return {"shape": shape, "solidity": solidity, "fillmode": "overlay", "fgcolor": "rgba(0, 0, 0, 0.55)"}


def with_alpha(color: str, alpha: float) -> str:
    """'#RRGGBB' -> 'rgba(r, g, b, alpha)'."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def relative_luminance(color: str) -> float:
    """WCAG 2.1 relative luminance of '#RRGGBB': 0.2126 R + 0.7152 G + 0.0722 B of the linearised
    channels (c / 12.92 up to 0.04045, else ((c + 0.055) / 1.055) ** 2.4)."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio (L1 + 0.05) / (L2 + 0.05), L1 the lighter: 1 to 21."""
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
