"""A run's results: per-vertex values keyed by original id, as NumPy arrays
(held in memory, or mapped from .npy files when they are large), a pandas
DataFrame, the top vertices, and the run's statistics."""

import json
import os
import shutil
import weakref

import numpy as np

from .errors import UsageError


class Result:
    """What `Graph.run` returns.

    ids: every vertex's original id, increasing. Each column (`columns`)
    holds one value per id, in the same order: `result["rank"]`, or
    `to_numpy()` for the first column."""

    def __init__(self, app, raw, columns_dir=None):
        self.app = app
        self.summary = raw["summary"]
        self.notices = raw["notices"]
        self.facts = json.loads(raw["facts_json"]) if raw["facts_json"] else {}
        self.stats = json.loads(raw["stats_json"]) if raw["stats_json"] else {}
        self._columns = {}
        if columns_dir is None:
            self.ids = raw["ids"]
            for name, _type, values in raw["columns"]:
                self._columns[name] = values
        else:
            # Mapped, not read: a result larger than memory stays on disk.
            self.ids = np.load(os.path.join(columns_dir, "ids.npy"), mmap_mode="r")
            for name, _type, _empty in raw["columns"]:
                self._columns[name] = np.load(os.path.join(columns_dir, name + ".npy"), mmap_mode="r")
            self._cleanup = weakref.finalize(self, shutil.rmtree, columns_dir, True)
        self.file_backed = columns_dir is not None

    @property
    def columns(self):
        """The names of the result columns ("rank", "depth", ...)."""
        return list(self._columns)

    def __getitem__(self, column):
        if column not in self._columns:
            raise KeyError(f"{column!r}: the columns are {self.columns}")
        return self._columns[column]

    def __len__(self):
        return len(self.ids)

    def to_numpy(self, column=None):
        """The values of `column` (default: the first), one per id in `ids`."""
        if not self._columns:
            raise UsageError(f"this {self.app} run kept no per-vertex results (results='none')")
        return self._columns[column or self.columns[0]]

    def to_pandas(self):
        """A DataFrame with an `id` column and one column per result column."""
        import pandas as pd

        data = {"id": np.asarray(self.ids)}
        for name, values in self._columns.items():
            data[name] = np.asarray(values)
        return pd.DataFrame(data)

    def top(self, k=10, column=None):
        """The k vertices with the largest values of `column`, largest first
        (ties by smaller id), as a DataFrame."""
        import pandas as pd

        values = np.asarray(self.to_numpy(column))
        k = min(k, len(values))
        if k == 0:
            return pd.DataFrame({"id": [], column or self.columns[0]: []})
        # Stable order on (-value, position): positions follow the ids.
        picked = np.argpartition(-values, k - 1)[:k] if k < len(values) else np.arange(len(values))
        order = picked[np.lexsort((picked, -values[picked]))]
        return pd.DataFrame({"id": np.asarray(self.ids)[order], column or self.columns[0]: values[order]})

    def __repr__(self):
        where = "mapped from files" if self.file_backed else "in memory"
        return f"<shardgraph.Result {self.app}: {len(self)} vertices, columns {self.columns}, {where}>"
