"""The one error of a bad experiment file."""

from __future__ import annotations


class ConfigError(Exception):
    """A bad experiment file; str() is the one line shown to the user."""
