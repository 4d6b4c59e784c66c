"""Exception families the CLI turns into one clear line and a non-zero exit."""


class SimError(Exception):
    """Base of every error a user can cause; its message is shown as is."""


class ConfigError(SimError):
    """A config file or value is invalid; the message names the key."""


class PositionError(SimError):
    """A position file is invalid; the message names the offending entry."""


class IllegalAction(SimError):
    """A policy or a replayed log asked for an action the rules forbid."""


class PolicyError(SimError):
    """A plug-in policy failed: its import, its constructor or its choose(); the message
    names the seat, and the game and seed to replay it with `sim play`."""


def one_line(exc: BaseException, limit: int = 200) -> str:
    """An exception from foreign code as one short line: 'ZeroDivisionError: division by zero'."""
    if isinstance(exc, SyntaxError):
        name = (exc.filename or "?").replace("\\", "/").rsplit("/", 1)[-1]
        return f"SyntaxError at {name}:{exc.lineno}: {exc.msg}"
    text = " ".join(str(exc).split())
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def os_problem(exc: OSError) -> str:
    """An OS error as '<file>: <what went wrong>' (the file the system names, if any)."""
    what = exc.strerror or " ".join(str(exc).split())
    files = [f for f in (exc.filename, exc.filename2) if f is not None]
    return ": ".join([*(str(f) for f in files), what]) if files else what
