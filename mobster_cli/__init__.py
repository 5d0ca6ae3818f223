"""The ``mobster`` command line."""
