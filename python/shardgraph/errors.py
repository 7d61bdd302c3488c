"""Exceptions: every error of the engine is one of these, carrying the
one-line message the command line prints."""


class ShardgraphError(Exception):
    """Any error from shardgraph."""


class UsageError(ShardgraphError, ValueError):
    """A bad argument: an unknown app or option value, a missing graph."""


class InputError(UsageError):
    """Malformed input (the message names the file and line)."""


class BudgetError(UsageError):
    """The memory budget is too small for the graph (the message says how much it needs)."""


class CorruptionError(ShardgraphError):
    """A stored graph failed a checksum or a structural check."""


class ShardgraphIOError(ShardgraphError, OSError):
    """A read or write failed (the message names the file)."""


class NotFoundError(ShardgraphError, FileNotFoundError):
    """Something the call needs is not there."""


class StoppedError(ShardgraphError, InterruptedError):
    """The work was stopped (by a signal or a stop request) and cleaned up."""


def from_core(error):
    """The exception for a _core.Error(code, message)."""
    code, message = error.args
    if code == "invalid_argument":
        if "No such file or directory" in message or "not a graph (no manifest" in message:
            return NotFoundError(message)
        if "--memory" in message or "memory budget" in message:
            return BudgetError(message)
        if _names_input(message):
            return InputError(message)
        return UsageError(message)
    return {
        "corruption": CorruptionError,
        "io_error": ShardgraphIOError,
        "not_found": NotFoundError,
        "interrupted": StoppedError,
    }.get(code, ShardgraphError)(message)


def _names_input(message):
    """Whether a message points into an input: "FILE:LINE: reason", or an
    edge or vertex the input names."""
    head = message.split(": ", 1)[0]
    if ":" in head and head.rsplit(":", 1)[1].isdigit():
        return True
    return any(words in message for words in ("names vertex", "listed twice", "vertex id", "the input holds no edges"))
