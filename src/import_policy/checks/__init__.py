"""Checks: pure functions of (facts, policy) -> diagnostics, one module per rule kind."""
