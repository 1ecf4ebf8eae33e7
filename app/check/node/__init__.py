"""Checks of one node: each module inspects one thing and returns `Check` results.

Roots (`/sys`, `/dev`, `/`) are parameters so tests run against fake directory trees.
`collect` runs them all and returns the facts other ranks compare against.
"""
