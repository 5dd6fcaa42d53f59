"""What one comparison shares: its seeds, its split and the run context every method reads.

:func:`split` samples the rows and splits them once into a **training part** (what every
method releases from) and a **holdout** of real records (never released); :func:`seed_of`
turns ``random_state`` into the run's one int seed. :class:`RunContext` holds the split, the
public schema and the steps several methods and measures share, computed once and cached
(the implicit attributes, the DCR reference, the attacked training records, the scaled
training part, the model matrices). :class:`SchemaEncoder` is the model matrix of CDP-LR and
of the logistic reference: paper 000's DP reading, built from the schema alone.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from core.cdp.dp_reading import public_split, reading_columns, schema_labels, schema_matrix
from core.data import Dataset
from core.evaluation import attacks
from core.imposter.detection import DetectionResult, detect_implicit
from core.privacy.schema import PublicSchema
from core.privacy.schema_builtin import schema_for
from core.runtime.randomness import (
    RandomState,
    check_random_state,
    display_rng,
    display_seed,
    draw_seed,
)
from core.sskm.scaled_table import ScaledTable
from core.validation import DataError

__all__ = ["DCR_RECORDS", "RunContext", "SchemaEncoder", "model_encoder", "schema_table", "seed_of", "split"]

#: Training records whose distance to closest record is measured by default: every one
#: (None). A cap (the comparison's ``dcr_records`` option) measures a seeded sample, the same
#: for every release, and adds a sampling error of at most 0.5 / sqrt(cap) to the risk
#: (0.005 at 10,000). The search is exact up to about 45,000 x 45,000 records, else an
#: index whose recall is measured and reported (:mod:`core.evaluation.attacks.search`).
DCR_RECORDS: int | None = None


def schema_table(frame: pd.DataFrame, schema: PublicSchema) -> ScaledTable:
    """The [0, 1]-scaled table of ``frame`` with bounds and category lists from ``schema`` only."""
    return ScaledTable(frame, schema=schema)


class SchemaEncoder:
    """The model matrix of CDP-LR and the logistic reference: paper 000's DP reading.

    The same encoding as the CDP-LR page's DP reading (:func:`core.cdp.dp_reading.schema_matrix`
    and :func:`~core.cdp.dp_reading.schema_labels`), built from the schema alone: each record
    is encoded on its own (:meth:`PublicSchema.conform`), a number clipped to its declared
    bounds and scaled to [-1, 1] by them, a category one-hot over its declared list plus
    OTHER (a category outside the list is OTHER). The label is 1 for the schema's second
    label category. Nothing is fitted on the rows, so one replaced record changes one row of
    X and nothing else: no category it brings, no value out of range moves the encoding of
    the other records.

    Parameters
    ----------
    schema : PublicSchema
    features : sequence of str
        The feature columns (schema features: not the label, not identifiers).
    label : str
        The label column; its schema entry must be categorical with two categories.
    """

    def __init__(self, schema: PublicSchema, features: Sequence[str], label: str) -> None:
        if not isinstance(schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
        spec = schema[label]
        if spec.kind != "categorical" or len(spec.categories) != 2:
            raise DataError(f"CDP-LR is a binary classifier: the schema must declare the label '{label}' "
                            "as categorical with two categories.")
        ids = [c for c in features if schema[c].kind == "identifier"]
        if ids:
            raise DataError(f"'{ids[0]}' is an identifier in the schema and is never a feature.")
        self.schema = schema
        self.features = list(features)
        self.label = label

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The model matrix of ``frame``, record by record."""
        return schema_matrix(frame, self.schema, self.features).X

    @property
    def names(self) -> list[str]:
        """The matrix's column names."""
        empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in self.features})
        return schema_matrix(empty, self.schema, self.features).names

    def labels(self, frame: pd.DataFrame) -> np.ndarray:
        """1 where the label is the schema's second category, else 0."""
        return schema_labels(frame, self.schema, self.label)


def model_encoder(schema: PublicSchema, features: Sequence[str], label: str,
                  train: pd.DataFrame) -> SchemaEncoder:
    """The model matrix's encoder: from the schema only (``train`` is not read; the argument
    lets a test put back an encoder fitted on the rows, the leak this replaced)."""
    return SchemaEncoder(schema, features, label)


@dataclass
class RunContext:
    """What every method and measure of one comparison shares (the split, cached steps).

    Attributes
    ----------
    train : Dataset
        The training part, with the dataset's roles.
    holdout : DataFrame
        The held-out real records.
    imposter_epochs : int or None
        Training epochs of IMPOSTER and the VAE-GAN (None: the synthesizer's default).
    base_seed : int
        The seed every other seed of the comparison derives from.
    schema : PublicSchema, optional
        The public schema (default :func:`core.privacy.schema_builtin.schema_for` of ``train``).
    dcr_records : int or None
        Training records DCR measures (None: every one; see :data:`DCR_RECORDS`).
    cache : dict
        The shared steps computed so far, by name.
    """

    train: Dataset
    holdout: pd.DataFrame
    imposter_epochs: int | None
    base_seed: int
    schema: PublicSchema | None = None
    dcr_records: int | None = DCR_RECORDS
    cache: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.schema is None:
            self.schema = schema_for(self.train)

    def cached(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()`` the first time ``key`` is asked for, the same object afterwards."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]

    def detection(self) -> DetectionResult:
        """Implicit attributes of the first sensitive attribute, on the training part."""
        sens = self.train.sensitive[0]
        return self.cached("detection", lambda: detect_implicit(
            self.train.frame, sens, exclude=[self.train.label] if self.train.label else (),
            random_state=display_seed(self.base_seed, "detection")))

    def is_training_table(self, table: pd.DataFrame) -> bool:
        """Whether ``table`` is the training part itself (the raw table's release): its
        measures equal the references' and are computed once (:meth:`for_training`)."""
        frame = self.train.frame
        return table is frame or (table.shape == frame.shape and table.columns.equals(frame.columns)
                                  and table.equals(frame))

    def for_training(self, key: str, table: pd.DataFrame, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` when ``table`` is the training part (the
        references and the raw table's release share it), else every time."""
        return self.cached(key, make) if self.is_training_table(table) else make()

    def dcr_reference(self) -> attacks.DCRReference:
        """The training records DCR measures and their distances to the holdout."""
        return self.cached("dcr", lambda: attacks.DCRReference(
            self.train.frame, self.holdout, max_records=self.dcr_records,
            random_state=display_seed(self.base_seed, "dcr")))

    def member_targets(self) -> pd.DataFrame:
        """The training records every attribute-inference attack also targets (the people
        in the release): a seeded sample of the holdout's size, the same for every release."""
        def make() -> pd.DataFrame:
            n = min(len(self.train.frame), len(self.holdout))
            rng = display_rng(self.base_seed, "members")
            rows = np.sort(rng.choice(len(self.train.frame), size=n, replace=False))
            return self.train.frame.iloc[rows].reset_index(drop=True)

        return self.cached("members", make)

    def scaled_train(self) -> ScaledTable:
        """The training part scaled by the schema (the MSE measure's units)."""
        return self.cached("scaled", lambda: schema_table(self.train.frame, self.schema))

    def model_columns(self) -> list[str]:
        """The model's features: the CDP-LR page's DP reading, every schema feature but the
        label (:func:`core.cdp.dp_reading.reading_columns`), among the training part's columns."""
        present = set(self.train.frame.columns)
        return [c for c in reading_columns(self.schema, self.train.label) if c in present]

    def encoder(self) -> SchemaEncoder:
        """The model matrix's encoder (:func:`model_encoder`: from the schema, never the rows)."""
        return self.cached("encoder", lambda: model_encoder(self.schema, self.model_columns(),
                                                            self.train.label, self.train.frame))

    def model_data(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X_train, y_train, X_holdout, y_holdout): :meth:`encoder`'s matrices of each part
        (record by record), the label as 0 / 1 over the schema's two label categories."""
        return self.cached("model", self._model_data)

    def _model_data(self):
        enc = self.encoder()
        return (enc.transform(self.train.frame), enc.labels(self.train.frame),
                enc.transform(self.holdout), enc.labels(self.holdout))


def seed_of(random_state: RandomState) -> int:
    """The run's one int seed: ``random_state`` itself, or a seed drawn from it."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        check_random_state(random_state)  # refuses negative seeds
        return int(random_state)
    return draw_seed(check_random_state(random_state))


def split(dataset: Dataset, *, test_size: float, max_rows: int | None,
          rng: np.random.Generator) -> tuple[Dataset, pd.DataFrame]:
    """Sample ``max_rows`` rows, then split into a training Dataset and a holdout frame.

    Both steps read nothing but n (public) and the seeds: the sample is a seeded choice of
    row positions and the split the seeded permutation of row positions that CDP-LR's DP
    reading uses (:func:`core.cdp.dp_reading.public_split`). No label or value decides which
    records train a release, so one replaced record changes only its own row of the
    training part or of the holdout (a split stratified on the label moved 9-113 of 450
    training records when one label flipped). Two seeds are drawn from ``rng``, in this
    order: the row sample's, then the split's. A holdout that happens to lack a class is
    possible on small tables: the measures say so.

    Raises
    ------
    DataError
        Too few rows to hold out ``test_size`` of them and still train on at least 10.
    """
    sample_seed, split_seed = draw_seed(rng), draw_seed(rng)
    data = dataset if max_rows is None else dataset.sample(max_rows, random_state=sample_seed)
    frame = data.frame
    n_hold = int(math.ceil(test_size * len(frame)))
    if n_hold < 2 or len(frame) - n_hold < 10:
        raise DataError(f"The table has {len(frame)} rows: too few to hold out {test_size:g} of them and "
                        "still train on at least 10; load more rows or change test_size.")
    train, hold = public_split(len(frame), test_size=test_size, random_state=split_seed)
    return (replace(data, frame=frame.iloc[train].reset_index(drop=True)),
            frame.iloc[hold].reset_index(drop=True))
