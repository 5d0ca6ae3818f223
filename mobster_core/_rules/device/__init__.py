"""The device vocabulary: what a device is and is asked, beyond the app's own screen.

Rule 1: a device's and an app's facts, how the app is launched and what is sent to it
        (``device``); a check's device settings and device steps (``controls``).
Rule 2: what the system shows over the app is named where a read shows it: a system alert and its
        answer (``alerts``), the on-screen keyboard and what it covers (``keyboard``).
Rule 3: a secret is typed with its value and known everywhere else by its reference (``secrets``).
Rule 4: this room stands on ``vocabulary`` and ``formats`` only.
"""
