"""A process that multiprocessing spawns (a study's figure workers, for one) runs its parent's
main script again before it starts working: the spawn start method imports that script as
`__mp_main__` in the new process. A researcher's script that calls asiworld at its top level,
not under `if __name__ == "__main__":`, so called it again inside every worker: each began the
study again (with `--force`, clearing the outputs the script's own study was writing) and
printed a traceback when it tried to spawn workers of its own. A call made while a worker re-runs
the script is refused at once (`main_in_a_worker`), and the worker goes on to do its work."""

from __future__ import annotations

import sys

WHY = ("asiworld was called while a worker process ran this script again (multiprocessing "
       "starts each worker by importing the main script): put the script's work under "
       "`if __name__ == \"__main__\":`. The call in the script's own process goes on.")


def rerunning_main() -> bool:
    """True in a spawned process while it runs its parent's main script again."""
    multiprocessing = sys.modules.get("multiprocessing")  # never imported: never spawned
    if multiprocessing is None:
        return False
    # The flag multiprocessing itself reads to refuse a new process while one bootstraps.
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))
