"""import-policy: keep a repository's imports honest."""

__version__ = "0.1.0"
