"""On-disk caches in `.import_policy_cache/`: per-file facts, the folder walk, whole runs."""
