"""scripts/bench as a Python package: see scripts/bench."""
