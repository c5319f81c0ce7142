"""The architecture contracts (contract section 4a): layers, independence, protected, acyclic."""
