"""The fake UiAutomator2 server's parts: the device's state, its routes, its source and its wire.

``uiautomator2`` is the door (the server on loopback, the phone's loop); ``state`` what one device
keeps; ``routes`` what the server answers; ``render`` the phone's screen as the server's page
source; ``wire`` the envelope and errors. ``adb`` (the fake ``adb``) uses ``state`` and ``shell``.
"""
