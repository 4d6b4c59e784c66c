"""A fitted gradient-boosted regression as plain arrays, evaluated in compiled code.

scikit-learn's `HistGradientBoostingRegressor` fits the chances (`sim.feel.model`); a run
then evaluates them for every round of every game in its workers, where importing
scikit-learn and building its inputs as DataFrames would cost more than the games. So the
fitted trees are copied into five flat arrays (`Forest.of`) and walked by a small compiled
loop (`sim.feel.kernel.walk`), or by numpy for a few rows (a page's sample, in a process
that loads no compiled code otherwise). The copy reads the predictor's node table, which
is not public API: `tests/feel/test_feel.py` checks the copy against `model.predict` on
fresh inputs, so a scikit-learn that changes it fails a test rather than a run.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Forest:
    """The trees of a fitted regression, nodes of all trees end to end: `feature` and
    `threshold` of a split (go left when x <= threshold), `left` and `right` (indices into
    the same arrays), `value` of a leaf (`feature` -1), `roots` (each tree's first node) and
    the `baseline` every prediction starts from."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    baseline: float

    @classmethod
    def of(cls, model) -> Forest:
        """The trees of a fitted `HistGradientBoostingRegressor` (numeric inputs, no
        missing values: the chances' inputs have none)."""
        tables = [trees[0].nodes for trees in model._predictors]
        sizes = np.array([len(t) for t in tables], np.int64)
        roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        nodes = np.concatenate(tables)
        offset = np.repeat(roots, sizes)
        leaf = nodes["is_leaf"].astype(bool)
        return cls(
            feature=np.where(leaf, -1, nodes["feature_idx"]).astype(np.int64),
            threshold=nodes["num_threshold"].astype(np.float64),
            left=(nodes["left"] + offset).astype(np.int64),
            right=(nodes["right"] + offset).astype(np.int64),
            value=nodes["value"].astype(np.float64),
            roots=roots,
            baseline=float(np.ravel(model._baseline_prediction)[0]),
        )

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The regression at every row of x (rows x the inputs the model was fitted on): a
        few rows (a page's sample of distinct states) walked by numpy, so a process that
        plays no game never loads compiled code for them; many, or any in a process that
        loaded the compiled kernel with its games (`compiled`), by the compiled walk
        (`sim.feel.kernel.walk`, 3 times faster). Both add the same leaves in the same
        order: the same predictions, bit for bit."""
        kernel = compiled()
        if kernel is None and len(x) > NUMPY_ROWS:  # many rows: worth loading the kernel
            from sim.feel import kernel as loaded

            loaded.load()
            kernel = loaded
        if kernel is None:
            return _predict_numpy(np.asarray(x, np.float64), self)
        return kernel.predict(self, x)

    def arrays(self) -> dict[str, np.ndarray]:
        """The forest as named arrays (for an .npz file)."""
        return {
            "feature": self.feature,
            "threshold": self.threshold,
            "left": self.left,
            "right": self.right,
            "value": self.value,
            "roots": self.roots,
            "baseline": np.array([self.baseline]),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Forest:
        """`arrays`' inverse."""
        names = ("feature", "threshold", "left", "right", "value", "roots")
        return cls(*(np.asarray(arrays[n]) for n in names), float(arrays["baseline"][0]))


NUMPY_ROWS = 50_000  # rows up to which numpy walks the trees (about 0.1 s at most)


def compiled():
    """`sim.feel.kernel` where this process loaded it (`kernel.load`: a process that plays
    games; forked workers inherit it), else None. Looked up, not imported: a process that
    plays no game (a page) never imports numba for the feel."""
    kernel = sys.modules.get("sim.feel.kernel")
    return kernel if kernel is not None and kernel.LOADED else None


def _predict_numpy(x: np.ndarray, forest: Forest) -> np.ndarray:
    """`sim.feel.kernel.walk` in numpy: every row walks each tree level by level, the leaves
    added tree by tree in the compiled loop's order."""
    total = np.zeros(len(x))
    for root in forest.roots:
        node = np.full(len(x), root, np.int64)
        inner = np.flatnonzero(forest.feature[node] >= 0)
        while len(inner):
            at = node[inner]
            left = x[inner, forest.feature[at]] <= forest.threshold[at]
            node[inner] = np.where(left, forest.left[at], forest.right[at])
            inner = inner[forest.feature[node[inner]] >= 0]
        total += forest.value[node]
    return forest.baseline + total
