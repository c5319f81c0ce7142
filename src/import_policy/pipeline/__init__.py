"""The pipeline: plan a run, read and prefilter files, extract facts (in a pool), run the kinds."""
