"""The verdict's language: how a run's observations become an outcome, and what to do about it.

Rule 1: the verdict comes from the assertions on one settled read, never from a model (``verdict``).
Rule 2: what to do about an outcome is a code with arguments, spelled by each front end (``fixes``).
Rule 3: a screen is shown to a person as the matcher and the verdict see it (``inspection``).
Rule 4: this room is the top of the rules: it may use every other room, and none uses it.
"""
