"""The harness both front ends share: devices from names, pools, and suites run on them.

The ``mobster`` command and the pytest plugin parse their own options and hand them here.
"""
