"""What the Android devices and fakes share: Android's tree and its roles, pure.

``roles`` maps Android's widget classes onto the core's roles (the one place), both ways;
``tree`` reads both dump formats (the UiAutomator2 server's page source, ``uiautomator dump``)
into a ``Screen``; ``gestures`` is what an action is on the wire (a W3C pointer, an element's
point in pixels). No device, fake, harness or model is imported here: they stand on it.
"""
