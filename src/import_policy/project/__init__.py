"""The project as Python sees it: which modules live where under the roots."""
