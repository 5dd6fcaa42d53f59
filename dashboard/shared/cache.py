"""The one layer through which pages call core: thin, bounded cache wrappers.

One module per area (``data``, and one per paper). Every wrapper is keyed on the dataset
(hashed by content) and the parameters, with ``max_entries`` and ``ttl`` so memory stays
bounded.
"""

from core.data import Dataset

#: seconds a cached result lives (``ttl`` of every st.cache_data / st.cache_resource here)
TTL = 3600

#: ``hash_funcs`` for st.cache_data / st.cache_resource: a Dataset is keyed by its content
#: fingerprint (computed once per object) instead of pickling the whole frame on each call.
HASH_FUNCS = {Dataset: lambda d: d.fingerprint()}
