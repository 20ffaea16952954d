"""Object plans shared by every document that reads the same selection.

The same selection (its text and the text of every fragment it spreads, directly or not) makes
the same plan, whatever document holds it. REST's documents of one shape differ only in their
filters, and documents of other shapes spread the same nested fragments: each would otherwise
compile (and compile to SQL) the same plans again. A plan is kept here while a prepared
document's plan holds it.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakValueDictionary

from .selections import node_text, spread_names

# (resource, shown-once secrets it shows, the selection's text, (fragment name, text)...) -> plan
_PLANS: WeakValueDictionary = WeakValueDictionary()


class SharedPlans:
    """The plans of one document being compiled, found among those of others where they read
    the same."""

    def __init__(self, fragments: dict):
        self.fragments = fragments  # the document's, by name
        self.reads: dict[str, tuple | None] = {}  # selection text -> the fragments it reads

    def plan(self, resource, selection_set, make: Callable, revealed: tuple = ()):
        text = node_text(selection_set)
        reads = None if text is None else self._reads(text)
        if reads is None:  # a node built without its text: not shared
            return make()
        key = (resource, revealed, text, *reads)
        found = _PLANS.get(key)
        if found is None:
            found = _PLANS.setdefault(key, make())
        return found

    def _reads(self, text: str) -> tuple | None:
        """(name, text) of every fragment the text spreads, directly or not, by name."""
        if text in self.reads:
            return self.reads[text]
        seen: dict[str, str] = {}
        pending = list(spread_names(text))
        while pending:
            name = pending.pop()
            if name in seen or name not in self.fragments:
                continue
            fragment = node_text(self.fragments[name])
            if fragment is None:
                self.reads[text] = None
                return None
            seen[name] = fragment
            pending.extend(spread_names(fragment))
        self.reads[text] = found = tuple(sorted(seen.items()))
        return found
