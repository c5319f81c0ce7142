"""Rule kinds: the registry of `kind:` values and one module per kind; pure checks over facts."""
