"""The model contract: what a model is told, what it answers, and what that costs.

Rule 1: a model is given a :class:`~.model.Prompt` and answers one :class:`~.model.Decision`
        through one tool (``prompt``); an answer that isn't one is a ``ModelError``.
Rule 2: what a call costs is priced from its usage, estimated when the vendor gives none (``cost``).
Rule 3: this room knows nothing of the replay, the device's rules or the verdict.
"""
