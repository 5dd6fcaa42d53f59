"""Paper 003: SSKM_DP, differentially private publishing through an SFLA-initialised SOM.

Modules: :mod:`core.sskm.sfla` (shuffled frog leaping search for the SOM's initial weights,
Algorithm 2), :mod:`core.sskm.som` (the Kohonen map, Algorithm 3), :mod:`core.sskm.connection`
(MIC connection strengths, Algorithm 4), :mod:`core.sskm.publisher` (SSKM_DP: the sound
mechanism by default, the paper's Eq. 18-19 as ``mode="paper"``, not DP) and
:mod:`core.sskm.baselines` (MDAV, MDAV_DP, IDP-KMeans); :mod:`core.sskm.sweeps` runs a fitted
publisher over epsilon and against the baselines over the number of clusters.
"""
from core.sskm.baselines import BaselineResult, idp_kmeans, mdav, mdav_dp, mdav_release, microaggregate
from core.sskm.connection import ConnectionResult, mic_connections
from core.sskm.publisher import SSKMDP, cluster_release_metrics
from core.sskm.sfla import SFLAResult, sfla_initial_weights, som_fitness
from core.sskm.som import SelfOrganizingMap
from core.sskm.sweeps import baselines_vs_clusters, epsilon_curve

__all__ = [
    "sfla_initial_weights", "SFLAResult", "som_fitness",
    "SelfOrganizingMap",
    "mic_connections", "ConnectionResult",
    "SSKMDP", "cluster_release_metrics",
    "mdav", "mdav_dp", "mdav_release", "idp_kmeans", "microaggregate", "BaselineResult",
    "epsilon_curve", "baselines_vs_clusters",
]
