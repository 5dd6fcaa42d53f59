"""The one layer through which pages call core: thin, bounded cache wrappers.

One module per area (``data``, and one per paper). Every wrapper is keyed on the dataset
(hashed by content) and the parameters, with ``max_entries`` and ``ttl`` so memory stays
bounded.
"""
