"""Studies: N agent configurations in one shared world, run, scored and recorded as one thing."""
