"""Configuration: YAML with line marks -> a validated, frozen `Policy`."""
