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


_CLASS_OF_CODE = {
    "invalid_argument": UsageError,
    "bad_input": InputError,
    "over_budget": BudgetError,
    "no_input": NotFoundError,
    "not_found": NotFoundError,
    "corruption": CorruptionError,
    "io_error": ShardgraphIOError,
    "interrupted": StoppedError,
}


def from_core(error):
    """The exception for a _core.Error(code, message): the engine says which
    kind of error it is."""
    code, message = error.args
    return _CLASS_OF_CODE.get(code, ShardgraphError)(message)
