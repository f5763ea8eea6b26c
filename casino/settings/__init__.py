"""Settings package: ``base`` (local use), ``test`` (pytest) and ``production``."""
