"""Built-in presets, shipped in the wheel as import_policy.rules."""
