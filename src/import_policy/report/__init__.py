"""Renderers: diagnostics -> text, JSON, and the other output formats."""
