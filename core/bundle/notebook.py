"""A bundle's notebook: its rerun script (jupytext's percent format) as a Jupyter notebook.

The script is the one source; :func:`script_to_notebook` converts it with jupytext, a kept
tool, so the notebook's cells are the script's ``# %%`` cells, in order, with nothing added.
"""
from __future__ import annotations

__all__ = ["script_to_notebook"]


def script_to_notebook(script: str) -> str:
    """The ``.ipynb`` text (nbformat 4, a Python 3 kernel) of a percent-format script."""
    if not isinstance(script, str):
        raise TypeError(f"script must be a string, got {type(script).__name__}.")
    import jupytext

    notebook = jupytext.reads(script, fmt="py:percent")
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata.pop("jupytext", None)  # the notebook stands alone; the script is its source
    return jupytext.writes(notebook, fmt="ipynb")
