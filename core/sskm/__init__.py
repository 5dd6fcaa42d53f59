"""Paper 003: SSKM_DP, publishing through an SFLA-initialised SOM.

Modules: :mod:`core.sskm.sfla` (shuffled frog leaping search for the SOM's initial weights,
Algorithm 2), :mod:`core.sskm.som` (the Kohonen map, Algorithm 3) and
:mod:`core.sskm.noisy_som` (the map fitted through noise), :mod:`core.sskm.connection`
(MIC connection strengths, Algorithm 4), :mod:`core.sskm.scaled_table` (the [0, 1] scaling),
the two publishers sharing :mod:`core.sskm.publisher_base`: :class:`SSKMDP`
(:mod:`core.sskm.sound`, the epsilon-DP mechanism) and :class:`PaperSSKMDP`
(:mod:`core.sskm.paper_publisher`, the paper's Eq. 18-19, not DP), picked by name through
:data:`SSKM_VARIANTS`; the baselines :mod:`core.sskm.microaggregation` (MDAV, MDAV_DP) and
:mod:`core.sskm.dp_kmeans` (IDP-KMeans); :mod:`core.sskm.sweeps` runs a fitted publisher over
epsilon and against the baselines over the number of clusters; :mod:`core.sskm.paper` holds
the paper's numbers and claims.
"""
from core.sskm.baseline_release import BaselineResult
from core.sskm.cluster_release import cluster_release_metrics
from core.sskm.connection import ConnectionResult, mic_connections
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.microaggregation import mdav, mdav_dp, mdav_release, microaggregate
from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.sfla import SFLAResult, sfla_initial_weights, som_fitness
from core.sskm.som import SelfOrganizingMap
from core.sskm.sound import SSKMDP
from core.sskm.sweeps import baselines_vs_clusters, epsilon_curve
from core.sskm.variants import SSKM_VARIANTS, sskm_variant

__all__ = [
    "sfla_initial_weights", "SFLAResult", "som_fitness",
    "SelfOrganizingMap",
    "mic_connections", "ConnectionResult",
    "SSKMDP", "PaperSSKMDP", "SSKM_VARIANTS", "sskm_variant", "cluster_release_metrics",
    "mdav", "mdav_dp", "mdav_release", "idp_kmeans", "microaggregate", "BaselineResult",
    "epsilon_curve", "baselines_vs_clusters",
]
