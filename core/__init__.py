"""Algorithms of the privacy-utility explorer; never imports streamlit."""
__version__ = "0.1.0"
