"""Facts: what one parse of a file says about its imports, uses, calls and comments."""

# Bumped whenever extraction changes what it records for the same bytes: every cache whose
# answers come from facts (per-file facts, whole-tree runs, the ROCm pass's graph) keys by it,
# so an editable install whose extractors moved on never replays an old answer.
EXTRACTION = 9
