"""The Tour: one short story per paper and one for the comparison, and its offline report. It draws charts from the feature folders (never the reverse)."""
