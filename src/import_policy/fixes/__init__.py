"""Autofixes (contract section 6): what a finding carries (`payload`), how import
statements and probe calls are rewritten (`imports`, `probes`), and the one
transformer per file that applies them (`import_policy.fixer`)."""
