"""The ROCm-safety pass (contract section 4) as one package: predicates, sites, graph, plan, rules."""
