"""Regular expressions matched in time linear in the text: SQLite's REGEXP.

SQLite has no regular expressions of its own; Django gives it Python's `re`, which backtracks:
`(a+)+b` over forty a's runs for hours, holding the interpreter's lock, where nothing can stop
it. Here the same patterns (read by Python's own parser, so each means what it means to `re`)
are matched by following every path through the pattern at once, one text character at a time:
the sets of positions reached become the states of an automaton built as the text needs them,
so a character costs one dictionary lookup once its transition is known, and one pass over the
pattern otherwise. Whether a pattern matches anywhere in a text is all REGEXP asks, and greedy
or lazy repeats and the order of alternatives do not change that.

What an automaton cannot match (references to groups, lookahead and lookbehind, atomic groups
and possessive repeats) is refused when the pattern is compiled (`Unsupported`), and so is a
pattern whose repeats expand past `MAX_STEPS` positions. A search checks its deadline as it
goes and raises `DeadlinePassed` once it is past.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from math import inf
from re import _constants as c  # the parser's node kinds
from re import _parser
from time import monotonic

MAX_STEPS = 10_000  # positions of the expanded pattern
# An automaton's memory: past this many transitions, or positions held in its states, the next
# search starts a new one (and a search that fills one goes on in a new one).
MAX_TRANSITIONS = 100_000
MAX_HELD = 1_000_000
CHECK_EVERY = 4096  # characters between two looks at the clock while transitions are known


class Unsupported(ValueError):
    """A pattern no automaton matches (or too large a one); the message says what to change."""


class DeadlinePassed(Exception):
    """The search ran past its deadline."""


# Instructions: CHAR (a character class, then the next), SPLIT (two ways on), JUMP, ASSERT (a
# condition on the characters around the position, then the next), MATCH.
CHAR, SPLIT, JUMP, ASSERT, MATCH = range(5)
# What a position's neighbours are: the text's start or end, a newline (NEWLINE_LAST: the text's
# last character), an ASCII word character, another word character, anything else.
START, END, NEWLINE, NEWLINE_LAST, ASCII_WORD, WORD, OTHER = range(7)
# Assertions, as `re` evaluates them (`$` also before a newline ending the text; `\b` and `\B`
# never hold in an empty text).
(
    TEXT_START,
    LINE_START,
    TEXT_END,
    END_OR_LAST_NEWLINE,
    LINE_END,
    BOUNDARY,
    ASCII_BOUNDARY,
    NOT_BOUNDARY,
    NOT_ASCII_BOUNDARY,
) = range(9)
WORD_ASSERTIONS = frozenset({BOUNDARY, ASCII_BOUNDARY, NOT_BOUNDARY, NOT_ASCII_BOUNDARY})
CATEGORIES = {
    c.CATEGORY_DIGIT: r"\d",
    c.CATEGORY_NOT_DIGIT: r"\D",
    c.CATEGORY_SPACE: r"\s",
    c.CATEGORY_NOT_SPACE: r"\S",
    c.CATEGORY_WORD: r"\w",
    c.CATEGORY_NOT_WORD: r"\W",
}
CHARACTER_FLAGS = re.IGNORECASE | re.DOTALL | re.ASCII
REFUSED = {
    c.GROUPREF: "references to groups",
    c.GROUPREF_EXISTS: "references to groups",
    c.ASSERT: "lookahead or lookbehind",
    c.ASSERT_NOT: "lookahead or lookbehind",
    c.ATOMIC_GROUP: "atomic groups",
    c.POSSESSIVE_REPEAT: "possessive repeats",
}


def _holds(assertion: int, before: int, after: int) -> bool:
    if assertion == TEXT_START:
        return before == START
    if assertion == LINE_START:
        return before in (START, NEWLINE)
    if assertion == TEXT_END:
        return after == END
    if assertion == END_OR_LAST_NEWLINE:
        return after in (END, NEWLINE_LAST)
    if assertion == LINE_END:
        return after in (END, NEWLINE, NEWLINE_LAST)
    if before == START and after == END:
        return False
    words = (ASCII_WORD,) if assertion in (ASCII_BOUNDARY, NOT_ASCII_BOUNDARY) else (ASCII_WORD, WORD)
    differ = (before in words) != (after in words)
    return differ if assertion in (BOUNDARY, ASCII_BOUNDARY) else not differ


def _word_class(ch: str) -> int:
    if ch == "\n":
        return NEWLINE
    if ch.isalnum() or ch == "_":
        return ASCII_WORD if ch.isascii() else WORD
    return OTHER


def _line_class(ch: str) -> int:
    return NEWLINE if ch == "\n" else OTHER


def _no_class(ch: str) -> int:
    return OTHER


def _char_source(code: int) -> str:
    return f"\\U{code:08x}"


def _class_source(op, value) -> str:
    """The source of one character class node, which `re` compiles alone."""
    if op is c.LITERAL:
        return _char_source(value)
    if op is c.NOT_LITERAL:
        return f"[^{_char_source(value)}]"
    if op is c.ANY:
        return "."
    parts = []
    for kind, item in value:
        if kind is c.NEGATE:
            parts.append("^")
        elif kind is c.LITERAL:
            parts.append(_char_source(item))
        elif kind is c.RANGE:
            parts.append(f"{_char_source(item[0])}-{_char_source(item[1])}")
        else:
            parts.append(CATEGORIES[item])
    return f"[{''.join(parts)}]"


class Program:
    """A pattern as instructions (Thompson's construction), each repeat written out."""

    def __init__(self, pattern: str):
        try:
            parsed = _parser.parse(pattern)
        except (re.error, OverflowError) as exc:
            raise Unsupported(f"Enter a valid regular expression: {exc}.") from None
        self.kinds: list[int] = []
        self.args: list = []
        self.classes: list = []  # compiled one-character patterns: `re`'s own meaning of each class
        self._class_ids: dict = {}
        self._emit_all(parsed, parsed.state.flags)
        self._add(MATCH, None)
        assertions = {arg for kind, arg in zip(self.kinds, self.args, strict=True) if kind == ASSERT}
        self.has_assertions = bool(assertions)
        self.classify = (
            _word_class if assertions & WORD_ASSERTIONS else _line_class if assertions else _no_class
        )
        # A pattern that must start where the text does: once no position is left, none will be.
        self.anchored = self.kinds[0] == ASSERT and self.args[0] == TEXT_START

    def _add(self, kind: int, arg) -> int:
        if len(self.kinds) >= MAX_STEPS:
            raise Unsupported(
                f"The regular expression is too complex: its repeats expand past {MAX_STEPS} steps."
            )
        self.kinds.append(kind)
        self.args.append(arg)
        return len(self.kinds) - 1

    def _emit_all(self, nodes, flags: int) -> None:
        for op, value in nodes:
            self._emit(op, value, flags)

    def _emit(self, op, value, flags: int) -> None:
        if op in REFUSED:
            raise Unsupported(
                f"Regular expressions on this database may not use {REFUSED[op]}: they are matched "
                "in a time bounded by the text's length, which those features do not allow."
            )
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            key = (_class_source(op, value), flags & CHARACTER_FLAGS)
            if key not in self._class_ids:
                self._class_ids[key] = len(self.classes)
                self.classes.append(re.compile(*key).match)
            self._add(CHAR, self._class_ids[key])
        elif op is c.AT:
            self._add(ASSERT, self._assertion(value, flags))
        elif op is c.SUBPATTERN:
            _group, added, removed, nodes = value
            if added & (re.ASCII | re.UNICODE):  # a type flag replaces the one in force
                flags &= ~(re.ASCII | re.UNICODE)
            self._emit_all(nodes, (flags | added) & ~removed)
        elif op is c.BRANCH:
            self._branch(value[1], flags)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            self._repeat(*value, flags)
        else:
            raise Unsupported(f"Regular expressions on this database may not use {op}.")

    def _assertion(self, value, flags: int) -> int:
        multiline = flags & re.MULTILINE
        ascii_words = flags & re.ASCII
        return {
            c.AT_BEGINNING_STRING: TEXT_START,
            c.AT_BEGINNING: LINE_START if multiline else TEXT_START,
            c.AT_END_STRING: TEXT_END,
            c.AT_END: LINE_END if multiline else END_OR_LAST_NEWLINE,
            c.AT_BOUNDARY: ASCII_BOUNDARY if ascii_words else BOUNDARY,
            c.AT_NON_BOUNDARY: NOT_ASCII_BOUNDARY if ascii_words else NOT_BOUNDARY,
        }[value]

    def _branch(self, alternatives, flags: int) -> None:
        ends = []
        for alternative in alternatives[:-1]:
            split = self._add(SPLIT, None)
            self._emit_all(alternative, flags)
            ends.append(self._add(JUMP, None))
            self.args[split] = (split + 1, len(self.kinds))
        self._emit_all(alternatives[-1], flags)
        for end in ends:
            self.args[end] = len(self.kinds)

    def _repeat(self, least: int, most, nodes, flags: int) -> None:
        for _ in range(least):
            self._emit_all(nodes, flags)
        if most is c.MAXREPEAT:
            loop = self._add(SPLIT, None)
            self._emit_all(nodes, flags)
            self._add(JUMP, loop)
            self.args[loop] = (loop + 1, len(self.kinds))
            return
        optional = []
        for _ in range(most - least):
            optional.append(self._add(SPLIT, None))
            self._emit_all(nodes, flags)
        for split in optional:
            self.args[split] = (split + 1, len(self.kinds))

    def closure(self, seeds, before: int, after: int) -> tuple[frozenset, bool]:
        """The character positions reachable from `seeds` between characters of the given
        classes without reading one, and whether the match is reached."""
        kinds, args = self.kinds, self.args
        waiting, seen, found = list(seeds), set(), set()
        matched = False
        while waiting:
            at = waiting.pop()
            if at in seen:
                continue
            seen.add(at)
            kind = kinds[at]
            if kind == CHAR:
                found.add(at)
            elif kind == SPLIT:
                waiting.extend(args[at])
            elif kind == JUMP:
                waiting.append(args[at])
            elif kind == ASSERT:
                if _holds(args[at], before, after):
                    waiting.append(at + 1)
            else:
                matched = True
        return frozenset(found), matched


class Automaton:
    """The states met so far (sets of positions) and the transitions between them."""

    def __init__(self, program: Program):
        self.program = program
        self.ids: dict[tuple[frozenset, bool], int] = {}
        self.states: list[frozenset] = []
        self.accepting: list[bool] = []
        self.transitions: dict = {}
        self.starts: dict[int, int] = {}  # the first state, by what follows the text's start
        self.held = 0
        self.lock = threading.Lock()

    @property
    def full(self) -> bool:
        return len(self.transitions) > MAX_TRANSITIONS or self.held > MAX_HELD

    def state(self, positions: frozenset, matched: bool) -> int:
        with self.lock:
            found = self.ids.get((positions, matched))
            if found is None:
                found = self.ids[(positions, matched)] = len(self.states)
                self.states.append(positions)
                self.accepting.append(matched)
                self.held += len(positions)
            return found

    def first(self, after: int) -> int:
        found = self.starts.get(after)
        if found is None:
            found = self.starts[after] = self.state(*self.program.closure((0,), START, after))
        return found

    def step(self, state: int, ch: str, after: int) -> int:
        """The state after reading `ch` from `state`, with a match starting anew after it."""
        program = self.program
        kinds, classes, args = program.kinds, program.classes, program.args
        seeds = [at + 1 for at in self.states[state] if kinds[at] == CHAR and classes[args[at]](ch)]
        seeds.append(0)
        target = self.state(*program.closure(seeds, program.classify(ch), after))
        self.transitions[(state, ch, after)] = target
        return target


class Pattern:
    def __init__(self, source: str):
        self.program = Program(source)
        self.automaton = Automaton(self.program)

    def search(self, text: str, deadline: float = inf) -> bool:
        """Whether the pattern matches anywhere in `text` (as `re.search` would find)."""
        automaton = self.automaton
        if automaton.full:
            automaton = self.automaton = Automaton(self.program)
        program = self.program
        classify, anchored, asks = program.classify, program.anchored, program.has_assertions
        last = len(text) - 1
        state = automaton.first(_following(text, -1, last, classify) if asks else OTHER)
        accepting, states, transitions = automaton.accepting, automaton.states, automaton.transitions
        for i, ch in enumerate(text):
            if accepting[state]:
                return True
            if anchored and not states[state]:
                return False
            # One class when no assertion asks what follows: the automaton stays small.
            after = _following(text, i, last, classify) if asks else OTHER
            target = transitions.get((state, ch, after))
            if target is None:
                if monotonic() > deadline:
                    raise DeadlinePassed
                if automaton.full:  # go on in a new one, from the same positions
                    positions = states[state]
                    automaton = self.automaton = Automaton(program)
                    accepting, states, transitions = (
                        automaton.accepting,
                        automaton.states,
                        automaton.transitions,
                    )
                    state = automaton.state(positions, False)
                target = automaton.step(state, ch, after)
            state = target
            if not i % CHECK_EVERY and monotonic() > deadline:
                raise DeadlinePassed
        return accepting[state]


def _following(text: str, i: int, last: int, classify) -> int:
    """What follows character i of the text (-1: the text's start), as assertions ask."""
    if i == last:
        return END
    following = classify(text[i + 1])
    return NEWLINE_LAST if following == NEWLINE and i + 1 == last else following


@lru_cache(maxsize=256)
def compile_pattern(source: str) -> Pattern:
    """The pattern (kept: REGEXP is called once per row with the same one); Unsupported when no
    automaton can match it."""
    return Pattern(source)
