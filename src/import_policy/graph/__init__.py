"""The project's eager import graph, which every consumer reads: chains, the platform judge, heavy sites and reach, the persistent store."""
