"""The ROCm-safety pass (contract section 4): its rules, their predicates and messages, the pass runner, the probe fixes and the rules docs; the graph it reads is `graph/`."""
