"""The shared vocabulary: what a read of the screen is, and what a recorded step is.

Rule 1: a :class:`~.screen.Screen` is one read of the accessibility tree; one rule says which of
        its elements are shown, and the signature, the fingerprint and similarity are its own.
Rule 2: a role has one spelling (``roles``), whichever driver read it.
Rule 3: a :class:`~.steps.Step` is one recorded action of a path, loaded strictly.
Rule 4: every other room speaks these words; this room speaks only ``formats``.
"""
