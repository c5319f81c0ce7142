"""Autofixes (contract section 6): payloads, rewriting import statements, applying, writing."""
