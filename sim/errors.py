"""Exception families the CLI turns into one clear line and a non-zero exit."""


class SimError(Exception):
    """Base of every error a user can cause; its message is shown as is."""


class ConfigError(SimError):
    """A config file or value is invalid; the message names the key."""


class PositionError(SimError):
    """A position file is invalid; the message names the offending entry."""


class IllegalAction(SimError):
    """A policy or a replayed log asked for an action the rules forbid."""
