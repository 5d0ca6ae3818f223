"""Safety: what an action commits, and what a device refuses (the rules are ``safety``'s).

Rule 1: every action is classified before it is sent, whoever sends it (Smart's recording, a
        replay, a heal, a live session, an alert's answer): a label's commit, a press on what
        holds it, and what each kind of device refuses (``safety``).
Rule 2: the tables the rules read (the commit words by language, the harmless phrases, prices,
        the read-only roles, the refusals) are ``tables``'; ``safety`` exports them too.
Rule 3: this room stands on ``device``, ``vocabulary`` and ``formats``; the replay's typing rules
        stand on it (a label is folded as safety folds it), and it knows no replay, assertion,
        model or verdict.
"""
