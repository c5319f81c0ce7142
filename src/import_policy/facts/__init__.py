"""Facts: what one parse of a file says about its imports, uses, calls and comments."""
