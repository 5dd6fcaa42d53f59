"""Where the noise of a release comes from: :class:`NoiseSource`.

Two kinds of randomness meet in this project (docs/design.md, "Noise that no viewer can
subtract"). **Display noise** follows the sidebar seed, so a teacher gets the same picture
twice (:func:`core.runtime.randomness.display_seed` mixes the seed with what the picture
shows, so two pictures never share noise draws). **Release noise** is for anything that
leaves the app (a download, an export, a report): :class:`NoiseSource` draws it from fresh
operating-system entropy, unless the user asks for a reproducible release, which is then
labelled "not private" in the file name, the sidecar and on the page (anyone who knows the
seed can regenerate and subtract the noise).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.runtime.randomness import check_random_state
from core.validation import check_positive_int

__all__ = ["NoiseSource"]


@dataclass(frozen=True)
class NoiseSource:
    """The randomness of one release that leaves the app.

    Parameters
    ----------
    reproducible_seed : int or None
        None (the default) draws fresh operating-system entropy: nobody, the operator
        included, can regenerate the noise. An int makes the release reproducible, and so
        **not private**: anyone who knows the seed can subtract the noise.
    """

    reproducible_seed: int | None = None

    def __post_init__(self) -> None:
        if self.reproducible_seed is not None:
            check_positive_int(self.reproducible_seed, name="reproducible_seed", minimum=0)

    @property
    def private(self) -> bool:
        """True when the noise cannot be regenerated (fresh entropy)."""
        return self.reproducible_seed is None

    def generator(self) -> np.random.Generator:
        """A new generator for this release (fresh entropy, or the reproducible seed)."""
        return check_random_state(self.reproducible_seed)  # None: fresh OS entropy

    def describe(self) -> str:
        """One sentence about the noise, for a page and a file header."""
        if self.private:
            return "Noise drawn from fresh operating-system entropy (cannot be regenerated)."
        return (f"REPRODUCIBLE release from seed {self.reproducible_seed}: NOT PRIVATE, anyone who "
                "knows the seed can regenerate the noise and remove it.")
