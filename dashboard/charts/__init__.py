"""Pure chart builders: results in, plotly / altair figures out (no streamlit).

One module per area (``data``, and one per paper), each testable without a server.
"""
