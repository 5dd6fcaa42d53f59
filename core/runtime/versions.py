"""The versions a result was made with: Python and the packages its numbers depend on."""
from __future__ import annotations

import importlib.metadata
import platform

__all__ = ["PACKAGES", "package_versions"]

#: The packages whose versions a report and a bundle state.
PACKAGES = ("numpy", "pandas", "scikit-learn", "scipy", "torch", "opendp", "faiss-cpu", "plotly", "streamlit",
            "privacy-utility-explorer")


def package_versions() -> dict[str, str]:
    """Python and :data:`PACKAGES` versions ("not installed" when absent)."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
