"""Paths on the command line -> the files to check."""
