"""Empirical privacy risk of a release: the same attacks on every release (issue 12).

Four measures, each run on real records the release was made from (``train``) and real
records it was not made from (``holdout``), so that a number is always read against a
baseline that needs no access to the generator:

- :func:`distance_to_closest_record` (DCR): are training records closer to the release
  than to other real records? (SDMetrics' DCROverfittingProtection, Anonymeter's
  holdout / control idea.)
- :func:`attribute_inference`: how well does a model trained on the release guess a
  sensitive column of real records, beyond always guessing the majority value?
- :func:`membership_inference_auc`: can the loss of a trained model tell its training
  records from others? (Yeom et al. 2018's loss-threshold attack.)
- :func:`nearest_distances` and :func:`encode_for_distance`: the exact nearest-neighbour
  search under DCR, in row blocks (never n x n in memory), on a Gower-like encoding;
  :func:`nearest_search` picks exact products, a k-d tree or an HNSW index by size and
  reports the index's measured recall.

Modules: :mod:`~core.evaluation.attacks.distance` (DCR), :mod:`~core.evaluation.attacks.nearest`
(encoding and search), :mod:`~core.evaluation.attacks.inference` (attribute inference),
:mod:`~core.evaluation.attacks.membership` (membership inference) and
:mod:`~core.evaluation.attacks.common` (input checks they share). The public names are
re-exported here, so ``from core.evaluation import attacks; attacks.attribute_inference``
works.

None of these is a guarantee: a low empirical risk says that these attacks failed, not
that every attack would; only differential privacy bounds every attack.
"""
from core.evaluation.attacks.distance import DCRReference, distance_to_closest_record
from core.evaluation.attacks.inference import attribute_inference
from core.evaluation.attacks.membership import membership_inference_auc
from core.evaluation.attacks.nearest import encode_for_distance, nearest_distances
from core.evaluation.attacks.search import NearestSearch, nearest_search

__all__ = [
    "encode_for_distance",
    "nearest_distances",
    "nearest_search",
    "NearestSearch",
    "distance_to_closest_record",
    "DCRReference",
    "attribute_inference",
    "membership_inference_auc",
]
