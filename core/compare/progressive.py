"""Results as they come: a comparison's methods, each as soon as its releases are measured.

A comparison runs one task per (method, repetition) (:func:`core.compare.run.compare`). The
cheap methods run first and the long trainings (:data:`LONG_METHODS`) last, so a page can
draw the first points within seconds; a :class:`MethodCollector` hands a
:class:`PartialComparison` to the caller each time a method's last repetition is in (the last
one comes before the audits). The order of execution changes nothing in the numbers: every task's
seeds come from the comparison's seed and the method, and the final runs keep the registry's
order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

__all__ = ["FIT_WEIGHT", "LONG_METHODS", "MethodCollector", "PartialComparison", "gather", "run_order",
           "task_weight"]

#: Methods whose fit takes tens of seconds (neural trainings, Private-PGM): they run last.
LONG_METHODS = ("IMPOSTER", "VAE-GAN (lambda 0)", "MST", "AIM")


@dataclass(frozen=True)
class PartialComparison:
    """What a running comparison has measured so far.

    Attributes
    ----------
    result : ComparisonResult
        The finished methods' runs, references and tables; no audits yet.
    done : tuple of str
        The methods measured (or skipped) so far, in the registry's order.
    pending : tuple of str
        The methods still releasing.
    audits_pending : bool
        Whether audits will run after the releases (they come last).
    """

    result: Any
    done: tuple[str, ...]
    pending: tuple[str, ...]
    audits_pending: bool

    def words(self) -> str:
        """One sentence: what is drawn and what is still to come."""
        total = len(self.done) + len(self.pending)
        parts = [f"{len(self.done)} of {total} methods measured"]
        if self.pending:
            parts.append("still running: " + ", ".join(self.pending))
        if self.audits_pending:
            parts.append("the privacy audits come last")
        return "; ".join(parts) + ". The takeaway waits until every method is in."


#: What one fit of a long method costs on the progress bar, in releases of a cheap method
#: (about half a second to a second each on 2 cores): IMPOSTER and the VAE-GAN per 15 epochs,
#: MST and AIM per epsilon (measured in the Tour's comparison and benchmarks/bench_dp_synth.py).
#: Without it the cheap methods, run first, filled 80 % of the bar in seconds and the time
#: left read "about 2 s" for a minute of training.
FIT_WEIGHT = {"IMPOSTER": 6.0, "VAE-GAN (lambda 0)": 6.0, "MST": 10.0, "AIM": 40.0}
_PER_EPOCH = ("IMPOSTER", "VAE-GAN (lambda 0)")


def task_weight(name: str, *, releases: int, epochs: int | None) -> float:
    """A (method, repetition) task's share of the progress bar: its ``releases`` (one per
    epsilon, or one) plus its fit's :data:`FIT_WEIGHT` (per 15 epochs for the neural ones, per
    release for MST and AIM)."""
    fit = FIT_WEIGHT.get(name, 0.0)
    if name in _PER_EPOCH:
        fit *= max(1, epochs or 15) / 15.0
    else:
        fit *= releases
    return float(releases) + fit


def run_order(names: Sequence[str]) -> list[int]:
    """Indices of ``names`` in the order their tasks run: the long methods last, the others
    (and the long ones among themselves) in their given order."""
    return sorted(range(len(names)), key=lambda i: names[i] in LONG_METHODS)


def gather(outs: Sequence[dict[str, Any]], skipped: dict[str, str]) -> tuple[list[dict], dict[str, float], dict]:
    """The rows of the methods that did not fail, the seconds per method and the first
    repetition's released tables, from task results (``{"method", "rows", "seconds",
    "error", "tables"}``); a method that failed goes to ``skipped`` with its reason."""
    rows, seconds, tables = [], {}, {}
    for out in outs:
        seconds[out["method"]] = seconds.get(out["method"], 0.0) + out["seconds"]
        if out["error"] is not None:
            skipped.setdefault(out["method"], out["error"])
        rows.extend(out["rows"])
        tables.update(out["tables"])
    kept = {k: v for k, v in tables.items() if k[0] not in skipped}
    return [r for r in rows if r["method"] not in skipped], seconds, kept


class MethodCollector:
    """``on_result`` of the comparison's tasks: once every repetition of a method is in, the
    caller gets a :class:`PartialComparison` of every method finished so far.

    Parameters
    ----------
    names : sequence of str
        The methods, in the registry's order.
    units : sequence of (str, int)
        The tasks, (method, repetition), in the order ``map_tasks`` was given them.
    skipped : dict
        The methods that could not run (copied into every partial result).
    make_result : callable(rows, seconds, tables, skipped) -> ComparisonResult
    on_partial : callable(PartialComparison)
    audits : bool
        Whether audits follow the releases.
    """

    def __init__(self, names: Sequence[str], units: Sequence[tuple[str, int]], skipped: dict[str, str], *,
                 make_result: Callable[..., Any], on_partial: Callable[[PartialComparison], None],
                 audits: bool) -> None:
        self.names, self.units = list(names), list(units)
        self.skipped, self.make_result, self.on_partial, self.audits = dict(skipped), make_result, on_partial, audits
        self.expected = {n: sum(1 for u in units if u[0] == n) for n in self.names}
        self.outs: dict[str, list[dict[str, Any]]] = {}

    def __call__(self, index: int, out: dict[str, Any]) -> None:
        name = self.units[index][0]
        self.outs.setdefault(name, []).append(out)
        if len(self.outs[name]) == self.expected[name]:
            self.send(audits_pending=self.audits)

    def send(self, *, audits_pending: bool) -> None:
        """Hand the methods finished so far to the caller."""
        done = [n for n in self.names if len(self.outs.get(n, ())) == self.expected[n]]
        skipped = dict(self.skipped)
        rows, seconds, tables = gather([o for n in done for o in self.outs[n]], skipped)
        pending = tuple(n for n in self.names if n not in done)
        self.on_partial(PartialComparison(self.make_result(rows, seconds, tables, skipped), tuple(done), pending,
                                          audits_pending))
