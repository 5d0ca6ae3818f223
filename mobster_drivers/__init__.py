"""Mobster replay's drivers: devices (scripted, WebDriverAgent, simulator, USB) and models."""
