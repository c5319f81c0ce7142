"""On-disk caches in `.import_policy_cache/`: per-file facts, the folder walk, whole runs."""

FOLDER = ".import_policy_cache"  # in the project root; every cache keeps its entries below it
