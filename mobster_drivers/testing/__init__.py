"""Fake servers on loopback that stand in for the outside world in tests.

Each fake is held to the real contract: the real client library (an LLM SDK, a WebDriverAgent
client) talks to it over a real socket, and it answers in the real wire shapes. Import the one
you need from its module, for example ``mobster_drivers.testing.llm``.
"""
