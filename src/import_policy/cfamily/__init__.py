"""Scanning helpers for C-family sources (C, C++, CUDA, Objective-C)."""
