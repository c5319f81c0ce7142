"""Adopting a policy on a legacy tree: baselines, stale allowlist entries, and their check steps."""
