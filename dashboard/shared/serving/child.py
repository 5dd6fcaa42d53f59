"""The entry point of the child processes :func:`dashboard.shared.serving.jobs.run_in_child` starts.

``python -m dashboard.shared.serving.child IN OUT``: reads the pickled ``(fn, kwargs)`` from the pipe
``IN``, runs ``fn(send=..., stop=..., **kwargs)`` at lower priority (on a small server, pages
and sliders come first) and writes its messages, then ``("done", result)`` or
``("error", exception)``, to the pipe ``OUT``. Anything arriving on ``IN`` afterwards sets
``stop``; its end (the server went away, even by ``kill -9``) ends the process at once.
``... child IN OUT MODULES`` (a spare, :mod:`dashboard.shared.serving.spare_child`) first imports
the comma-separated ``MODULES``, then waits for its job.

A fresh interpreter, not :mod:`multiprocessing`'s spawn: spawn re-runs the parent's
``__main__`` in the child, and inside a Streamlit script run that is the page script (or,
under AppTest, a temporary file that cannot run on its own).
"""
from __future__ import annotations

import os
import sys
import threading
from multiprocessing.connection import Connection


def _watch(inbox: Connection, stop: threading.Event) -> None:
    """A message from the server sets ``stop`` (the work ends at its next check and sends
    what it has); the pipe's end means the server is gone (closed, crashed or killed with
    ``kill -9``): nobody will read a result, so the process ends at once."""
    try:
        inbox.recv_bytes()
    except (EOFError, OSError):
        os._exit(0)
    stop.set()


def _name(name: bytes) -> None:
    """This process's name in ``/proc/PID/comm`` (Linux; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name), 0, 0, 0)  # PR_SET_NAME
    except Exception:  # pragma: no cover - not Linux
        pass


def main(argv: list[str]) -> int:
    inbox, outbox = Connection(int(argv[0]), writable=False), Connection(int(argv[1]), readable=False)
    preload = [m for m in argv[2].split(",") if m] if len(argv) > 2 else []
    _name(b"pux-spare" if preload else b"pux-job")
    try:
        os.nice(19)  # the lowest priority: the server's slider work always comes first
    except (AttributeError, OSError):  # pragma: no cover - not on this platform
        pass
    import importlib
    import pickle

    for module in preload:  # a spare: its imports done while it waits for a job
        importlib.import_module(module)
    fn, kwargs = pickle.loads(inbox.recv_bytes())  # from our own server
    _name(b"pux-job")
    stop = threading.Event()
    threading.Thread(target=_watch, args=(inbox, stop), daemon=True, name="pux-child-stop").start()
    lock = threading.Lock()

    def put(kind: str, payload) -> None:
        # plain pickle, not multiprocessing's: its reducers hand tensors over by shared file
        # descriptors that only a multiprocessing child can open
        data = pickle.dumps((kind, payload))  # before anything is written: a failure is reported
        with lock:
            outbox.send_bytes(data)

    try:
        put("done", fn(send=lambda message: put("message", message), stop=stop, **kwargs))
    except BaseException as exc:  # reported in the parent
        try:
            put("error", exc)
        except Exception:  # pragma: no cover - an exception that does not pickle
            put("error", RuntimeError(f"{type(exc).__name__}: {exc}"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except EOFError:  # the pipe ended before a job came: the server went away, or dropped its spare
        sys.exit(0)
