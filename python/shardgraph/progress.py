"""Progress of long work: a tqdm bar when the caller wants one (in a
terminal or a notebook), or the caller's own callable."""

import sys


def sink(progress, what):
    """A callable for the engine's progress lines, and a function that closes it.

    progress: True (a tqdm bar), False or None (nothing), "auto" (a bar when
    stderr is a terminal or in a notebook), or a callable taking each line;
    a callable that returns False stops the work (StoppedError)."""
    if progress == "auto":
        progress = _interactive()
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    from tqdm.auto import tqdm

    bar = tqdm(desc=what, unit=" step", leave=False, dynamic_ncols=True)

    def update(line):
        if line:
            bar.update(1)
            bar.set_postfix_str(line.strip(), refresh=True)

    return update, bar.close


def _interactive():
    if "ipykernel" in sys.modules:
        return True
    return hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
