"""How work runs: where (this process or Dask), thread limits, progress and stopping, sweeps with repetitions, and randomness."""
