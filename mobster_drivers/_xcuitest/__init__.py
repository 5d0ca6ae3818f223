"""What the WebDriverAgent and Appium devices both speak: XCUITest trees, visibility, gestures.

Shared protocol code, not a device: parsing WDA's ``/source`` (JSON or XML) into a ``Screen``,
rebuilding what a fast read leaves out (visibility), and the points of taps and swipes.
"""
