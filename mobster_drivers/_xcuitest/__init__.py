"""What the WebDriverAgent and Appium devices both speak: XCUITest trees, visibility, gestures.

Shared protocol code, not a device: parsing WDA's ``/source`` (JSON or XML) into a ``Screen``,
rebuilding what a fast read leaves out (visibility), what an action is in points (gestures), the
session's settings, and what a reply must be (replies). It imports no device.
"""
