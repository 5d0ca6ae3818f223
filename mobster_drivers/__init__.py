"""Mobster replay's drivers: devices (scripted, WebDriverAgent, simulator, USB, Appium) and models.

``mobster_drivers.pool`` makes devices from names (``--sim``, ``--appium`` …) for the CLI, the
pytest plugin and your code, and runs a suite on a pool of them.
"""
