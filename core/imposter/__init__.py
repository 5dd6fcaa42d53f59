"""Paper 002, IMPOSTER: implicit-privacy detection and protection by data generation.

- :func:`detect_implicit` (Algorithm 1): NMI of every attribute with the sensitive one,
  the (theta, beta) check with a cross-validated classifier.
- :class:`ImposterSynthesizer` (Algorithm 2, Eq. 8-13): VAE + conditional GAN with a
  second discriminator that removes what the implicit attributes say about ``s``.
- :func:`krr_perturb` / :func:`krr_sweep` (Eq. 1, Fig. 7): the k-ary randomized response
  baseline on the implicit attributes.
- :func:`evaluate_settings` (Table 1): settings A and B plus train-on-synthetic /
  test-on-real, for XGBoost, GBDT, RF, MLP and LR; :func:`marginal_tv`: one- and
  two-way total variation of a synthetic table to the real one.
"""
from core.evaluation.classifiers import CLASSIFIERS, make_classifier
from core.imposter.detection import DetectionResult, detect_implicit, nmi_scores
from core.imposter.evaluation import evaluate_settings, lambda_sweep, marginal_tv, table_long, theta_sweep
from core.imposter.krr_baseline import FIG7_EPSILONS, krr_baseline, krr_ledger, krr_perturb, krr_sweep
from core.imposter.synthesizer import ImposterSynthesizer, synthesizer_ledger

__all__ = [
    "CLASSIFIERS", "make_classifier",
    "DetectionResult", "detect_implicit", "nmi_scores",
    "ImposterSynthesizer", "synthesizer_ledger",
    "krr_baseline", "krr_ledger", "krr_perturb", "krr_sweep", "FIG7_EPSILONS",
    "evaluate_settings", "table_long", "theta_sweep", "lambda_sweep", "marginal_tv",
]
