"""Fake servers on loopback that stand in for the outside world in tests.

Each fake is held to the real contract: the real client library (an LLM SDK, a WebDriverAgent
client) talks to it over a real socket, and it answers in the real wire shapes. Import the one
you need from its module, for example ``mobster_drivers.testing.llm``. Every fake stands on one
loopback server (``_server``): it binds 127.0.0.1 (usbmuxd: a unix socket), stops by itself after
its ``lifetime``, closes its connections at stop, records each request before handling it, and
dies at a request a test names (``die_when``).
"""
