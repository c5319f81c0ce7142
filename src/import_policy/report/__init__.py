"""Renderers: diagnostics -> text, JSON, and the other output formats."""

# The document formats of `check --format` besides `text`: the keys of `report.formats.FORMATS`,
# named here so that the command line can offer them without importing the renderers' records.
DOCUMENT_FORMATS = ("json", "sarif", "github")
