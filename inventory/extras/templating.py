"""The one template engine for user-written templates: computed fields, custom links, job
buttons, webhook bodies and headers, and export templates all render here.

Templates come from API users and run on the server, so they see data, never code:

- What a template may read is an allow-list. Objects reach templates as the views of
  `templatedata` (the fields the API shows of them, related objects and lists restricted to
  what the rendering user may view); plain values (text, numbers, dates, lists, mappings) offer
  the few methods listed in `SAFE_ATTRIBUTES`; anything else (a model, a manager, a queryset,
  a class, a private name) is out of reach, and so is calling anything not handed out here.
- Every rendering runs within a `Budget`: wall time, loop iterations and calls (macros and
  recursive loops included), and the text it produces (captured blocks included). A template
  is instrumented when compiled so that every loop, every output and every concatenation
  counts; operators and filters that could build a huge value in one step (`*`, `**`, `%`,
  `center`, `batch`, ...) are checked before they run. Past a bound, rendering stops with a
  `TemplateLimit` that names the setting.
- Loops over constant ranges that already go past the bound are refused when the template is
  written, as are templates longer than TEMPLATE_MAX_LENGTH.

Output is plain text (no HTML escaping): it is shown in JSON, links and exported files.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import re
import time
import uuid
from functools import lru_cache

from django.conf import settings
from jinja2 import TemplateError, nodes
from jinja2 import filters as jinja_filters
from jinja2.runtime import BlockReference, LoopContext, Macro, Undefined
from jinja2.sandbox import SandboxedEnvironment, SecurityError, safe_range
from jinja2.utils import Cycler, Joiner, Namespace, pass_context, pass_environment
from jinja2.visitor import NodeTransformer

from .templatedata import TemplateView


class TemplateFailed(ValueError):
    """A template that does not compile or fails while rendering; the message says why."""


class TemplateLimit(TemplateFailed):
    """A rendering that went past one of its bounds (time, iterations, output)."""


class Budget:
    """What renderings sharing it may still spend: one export, one page's computed fields, one
    webhook request."""

    __slots__ = ("deadline", "steps", "output")

    def __init__(self):
        self.deadline = time.monotonic() + settings.TEMPLATE_TIME_LIMIT
        self.steps = settings.TEMPLATE_MAX_ITERATIONS
        self.output = settings.TEMPLATE_MAX_OUTPUT

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise TemplateLimit(
                f"The template ran more than {settings.TEMPLATE_MAX_ITERATIONS} loop iterations and calls "
                "(TEMPLATE_MAX_ITERATIONS)."
            )
        if time.monotonic() > self.deadline:
            raise TemplateLimit(
                f"The template ran longer than {settings.TEMPLATE_TIME_LIMIT} seconds (TEMPLATE_TIME_LIMIT)."
            )

    def emit(self, size: int) -> None:
        self.output -= size
        if self.output < 0:
            raise TemplateLimit(too_long())


def too_long() -> str:
    return f"The template produced more than {settings.TEMPLATE_MAX_OUTPUT} characters (TEMPLATE_MAX_OUTPUT)."


_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("template_budget", default=None)


@contextlib.contextmanager
def budget():
    """Renderings inside share one budget (a page's computed fields spend it together)."""
    if _BUDGET.get() is not None:
        yield
        return
    token = _BUDGET.set(Budget())
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _spend() -> Budget:
    current = _BUDGET.get()
    if current is None:  # compile-time evaluation never reaches here: the filters are pass_context
        raise TemplateLimit("A template ran outside a rendering.")
    return current


def _check_size(value):
    """A built value no larger than a rendering may produce: text within the output bound, a
    list within the iteration bound."""
    if isinstance(value, str):
        if len(value) > settings.TEMPLATE_MAX_OUTPUT:
            raise TemplateLimit(too_long())
    elif isinstance(value, (list, tuple)) and len(value) > settings.TEMPLATE_MAX_ITERATIONS:
        raise TemplateLimit(too_many())
    return value


def too_many() -> str:
    return f"The template built a list of more than {settings.TEMPLATE_MAX_ITERATIONS} items (TEMPLATE_MAX_ITERATIONS)."


def _check_width(width) -> None:
    if isinstance(width, int) and width > settings.TEMPLATE_MAX_OUTPUT:
        raise TemplateLimit(too_long())


def _check_count(count) -> None:
    if isinstance(count, int) and count > settings.TEMPLATE_MAX_ITERATIONS:
        raise TemplateLimit(too_many())


_CONTAINERS = (list, tuple, dict, set, frozenset)


def _guard(value):
    """`value`, measured before it is turned into text: a list holding a large text many times
    over would otherwise become one enormous text in a single step."""
    if not isinstance(value, _CONTAINERS):
        return value
    limit, size, pending, seen = settings.TEMPLATE_MAX_OUTPUT, 0, [value], set()
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            size += len(item) + 4
        elif isinstance(item, _CONTAINERS):
            if id(item) in seen:
                continue
            seen.add(id(item))
            pending.extend(item.items() if isinstance(item, dict) else item)
            size += 2
        else:
            size += 8
        if size > limit:
            raise TemplateLimit(too_long())
    return value


def _check_replace(text: str, old: str, new: str) -> None:
    if len(new) > len(old):
        found = text.count(old) if old else len(text) + 1
        _check_width(len(text) + found * (len(new) - len(old)))


# Printf-style conversions: a width or precision must be a number within bounds ("*" takes one
# from the arguments, which would escape the check).
_PRINTF = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_printf(text: str, arguments) -> None:
    for width, precision in _PRINTF.findall(text):
        for number in (width, precision):
            if number == "*":
                raise SecurityError("A width or precision taken from the arguments ('*') is not supported.")
            if number:
                _check_width(int(number))
    _guard(arguments)


MAX_INTEGER_BITS = 65536  # integers past this size are no inventory data


def _check_operands(operator: str, left, right) -> None:
    if operator == "*":
        for sequence, times in ((left, right), (right, left)):
            if isinstance(times, int) and not isinstance(times, bool):
                if isinstance(sequence, str):
                    _check_width(len(sequence) * times)
                elif isinstance(sequence, (list, tuple)):
                    _check_count(len(sequence) * times)
        both_integers = isinstance(left, int) and isinstance(right, int)
        if both_integers and left.bit_length() + right.bit_length() > MAX_INTEGER_BITS:
            raise TemplateLimit("The number is too large.")
    elif operator == "**" and isinstance(left, int) and isinstance(right, int):
        if abs(left) > 1 and right > 0 and right * left.bit_length() > MAX_INTEGER_BITS:
            raise TemplateLimit("The number is too large.")
    elif operator == "%" and isinstance(left, str):
        _check_printf(left, right)


# -- what plain values offer ---------------------------------------------------------------------

_TEXT = frozenset(
    [
        "capitalize",
        "casefold",
        "center",
        "count",
        "endswith",
        "find",
        "index",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "isidentifier",
        "islower",
        "isnumeric",
        "isprintable",
        "isspace",
        "istitle",
        "isupper",
        "join",
        "ljust",
        "lower",
        "lstrip",
        "partition",
        "removeprefix",
        "removesuffix",
        "replace",
        "rfind",
        "rindex",
        "rjust",
        "rpartition",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "swapcase",
        "title",
        "upper",
        "zfill",
    ]
)
_DATE = frozenset(["year", "month", "day", "weekday", "isoweekday", "isoformat", "strftime"])
_TIME = frozenset(["hour", "minute", "second", "microsecond", "isoformat", "strftime"])
SAFE_ATTRIBUTES: dict[type, frozenset[str]] = {
    str: _TEXT,
    dict: frozenset({"get", "items", "keys", "values"}),
    list: frozenset({"count", "index", "append"}),
    tuple: frozenset({"count", "index"}),
    datetime.datetime: _DATE | _TIME | {"date", "time", "timestamp"},
    datetime.date: _DATE,
    datetime.time: _TIME,
    uuid.UUID: frozenset({"hex"}),
    LoopContext: frozenset(
        [
            "index",
            "index0",
            "revindex",
            "revindex0",
            "first",
            "last",
            "length",
            "depth",
            "depth0",
            "previtem",
            "nextitem",
            "cycle",
            "changed",
        ]
    ),
    Cycler: frozenset({"next", "reset", "current"}),
}
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})


def _safe_attributes(kind: type) -> frozenset[str]:
    for base in kind.__mro__:
        found = SAFE_ATTRIBUTES.get(base)
        if found is not None:
            return found
    return frozenset()


def _refused(owner, name) -> str:
    return f"{type(owner).__name__}.{name} is not available to templates."


# -- filters -------------------------------------------------------------------------------------


def _measured(function, check=None):
    """A filter whose arguments are measured before it turns them into text, and whose result
    is checked; `check(*arguments)` looks at the other arguments first (a width, a count)."""

    def measured(*args, **kwargs):
        for argument in (*args, *kwargs.values()):
            _guard(argument)
        if check is not None:
            check(*args, **kwargs)
        return _check_size(function(*args, **kwargs))

    if hasattr(function, "jinja_pass_arg"):
        measured.jinja_pass_arg = function.jinja_pass_arg
    return measured


def _widths(value, width=80, *rest, **named):
    _check_width(width)


def _indents(value, width=4, *rest, **named):
    if isinstance(width, int):
        _check_width(width * (str(value).count("\n") + 1))


def _replaces(eval_ctx, value, old, new, count=None):
    _check_replace(str(value), str(old), str(new))


def _batches(value, linecount, fill_with=None):
    _check_count(linecount)


def _slices(eval_ctx, value, slices, fill_with=None):
    _check_count(slices)


def _formats(value, *args, **kwargs):
    _check_printf(str(value), (args, kwargs))


@pass_environment
def _attr(environment, value, name):
    return environment.getattr(value, name)


@pass_environment
def _sum(environment, iterable, attribute=None, start=0):
    """Jinja's sum, one addition at a time within the budget (summing lists is quadratic)."""
    if attribute is not None:
        iterable = map(jinja_filters.make_attrgetter(environment, attribute), iterable)
    total = start
    for item in iterable:
        _spend().step()
        total = _check_size(total + item)
    return total


@pass_context
def _loop(context, iterable):
    """Every loop's iterable (instrumented at compile time): each item costs a step."""
    spent = _spend()
    for item in iterable:
        spent.step()
        yield item


@pass_context
def _emit(context, value):
    """Every piece of output (instrumented at compile time), captured blocks included."""
    text = value if isinstance(value, str) else str(_guard(value))
    _spend().emit(len(text))
    return text


@pass_context
def _part(context, value):
    """Every operand of `~` (instrumented at compile time)."""
    return value if isinstance(value, str) else str(_guard(value))


@pass_context
def _text(context, value):
    """Every `~` concatenation's result (instrumented at compile time)."""
    return _check_size(value)


# Filters that only look at their input or rearrange it.
_UNCHANGED = [
    "abs",
    "count",
    "d",
    "default",
    "dictsort",
    "filesizeformat",
    "first",
    "float",
    "groupby",
    "int",
    "items",
    "last",
    "length",
    "list",
    "map",
    "max",
    "min",
    "random",
    "reject",
    "rejectattr",
    "reverse",
    "round",
    "safe",
    "select",
    "selectattr",
    "sort",
    "unique",
]
# Filters that turn their input into text.
_TEXTUAL = [
    "capitalize",
    "e",
    "escape",
    "forceescape",
    "join",
    "lower",
    "pprint",
    "string",
    "striptags",
    "title",
    "tojson",
    "trim",
    "truncate",
    "upper",
    "urlencode",
    "urlize",
    "wordcount",
    "wordwrap",
    "xmlattr",
]
FILTERS = {
    **{name: jinja_filters.FILTERS[name] for name in _UNCHANGED},
    **{name: _measured(jinja_filters.FILTERS[name]) for name in _TEXTUAL},
    "attr": _attr,
    "center": _measured(jinja_filters.do_center, _widths),
    "indent": _measured(jinja_filters.do_indent, _indents),
    "format": _measured(jinja_filters.do_format, _formats),
    "replace": _measured(jinja_filters.do_replace, _replaces),
    "batch": _measured(jinja_filters.do_batch, _batches),
    "slice": _measured(jinja_filters.do_slice, _slices),
    "sum": _sum,
    # Instrumentation: the compiler puts these around loops, output and concatenations.
    "_loop": _loop,
    "_emit": _emit,
    "_part": _part,
    "_text": _text,
}
GLOBALS = {"range": safe_range, "dict": dict, "cycler": Cycler, "joiner": Joiner, "namespace": Namespace}
_CALLABLE_GLOBALS = frozenset(map(id, GLOBALS.values()))


class _Instrument(NodeTransformer):
    """Puts the budget's checks into a parsed template."""

    def visit_For(self, node):
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, "_loop", [], [], None, None, lineno=node.lineno)
        return node

    def visit_Output(self, node):
        self.generic_visit(node)
        node.nodes = [
            nodes.Filter(child, "_emit", [], [], None, None, lineno=child.lineno) for child in node.nodes
        ]
        return node

    def visit_Concat(self, node):
        self.generic_visit(node)
        node.nodes = [
            nodes.Filter(part, "_part", [], [], None, None, lineno=part.lineno) for part in node.nodes
        ]
        return nodes.Filter(node, "_text", [], [], None, None, lineno=node.lineno)


class TemplateEnvironment(SandboxedEnvironment):
    """Jinja's sandbox with allow-lists in place of its deny-lists."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self):
        super().__init__(autoescape=False, keep_trailing_newline=True)
        self.filters = dict(FILTERS)
        self.globals = dict(GLOBALS)

    def getattr(self, obj, attribute):
        if isinstance(obj, TemplateView):
            return obj.template_attribute(attribute, self)
        if isinstance(obj, Undefined):
            return getattr(obj, attribute)  # Jinja's own error for a missing variable
        if isinstance(attribute, str) and not attribute.startswith("_"):
            if attribute in _safe_attributes(type(obj)):
                return getattr(obj, attribute)
            if isinstance(obj, Namespace):
                return getattr(obj, attribute, self.undefined(obj=obj, name=attribute))
            if isinstance(obj, dict):
                return obj[attribute] if attribute in obj else self.undefined(obj=obj, name=attribute)
        if isinstance(attribute, str) and hasattr(type(obj), attribute):
            return self.undefined(_refused(obj, attribute), obj=obj, name=attribute, exc=SecurityError)
        return self.undefined(obj=obj, name=attribute)

    def getitem(self, obj, argument):
        if isinstance(obj, TemplateView):
            return obj.template_item(argument, self)
        if isinstance(obj, (dict, list, tuple, str, range)):
            try:
                return obj[argument]
            except (TypeError, LookupError):
                pass
        if isinstance(argument, str):
            return self.getattr(obj, argument)
        return self.undefined(obj=obj, name=argument)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (Jinja's signature)
        _spend().step()
        if not _callable(__obj):
            raise SecurityError(f"{__obj!r} cannot be called from a template.")
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):  # text methods: their arguments measured, widths checked
            for argument in (*args, *kwargs.values()):
                _guard(argument)
            name = __obj.__name__
            if name in _WIDTH_METHODS and args:
                _check_width(args[0])
            elif name == "replace" and len(args) >= 2:
                _check_replace(owner, str(args[0]), str(args[1]))
        return _check_size(__context.call(__obj, *args, **kwargs))

    def call_binop(self, context, operator, left, right):
        _check_operands(operator, left, right)
        return _check_size(self.binop_table[operator](left, right))


def _callable(obj) -> bool:
    """Only what templates were handed: macros, loops, the globals, and the allowed methods of
    the values they read."""
    if isinstance(obj, (Macro, LoopContext, Joiner, BlockReference, Undefined)):
        return True
    if id(obj) in _CALLABLE_GLOBALS:
        return True
    owner, name = getattr(obj, "__self__", None), getattr(obj, "__name__", "")
    if owner is None or name.startswith("_"):
        return False
    if isinstance(owner, TemplateView):
        return name in owner.template_methods
    return name in _safe_attributes(type(owner))


ENVIRONMENT = TemplateEnvironment()


@lru_cache(maxsize=512)
def compiled(source: str):
    if len(source) > settings.TEMPLATE_MAX_LENGTH:
        raise TemplateFailed(
            f"Invalid template: longer than {settings.TEMPLATE_MAX_LENGTH} characters (TEMPLATE_MAX_LENGTH)."
        )
    try:
        tree = ENVIRONMENT.parse(source)
        _check_constant_loops(tree)
        return ENVIRONMENT.from_string(_Instrument().visit(tree))
    except TemplateError as exc:
        raise TemplateFailed(f"Invalid template: {exc}") from None


def _check_constant_loops(tree) -> None:
    """Loops nested over constant ranges whose iterations already go past the bound."""

    def walk(node, iterations: int) -> None:
        for child in node.iter_child_nodes():
            inner = iterations
            if isinstance(child, nodes.For):
                inner = iterations * _constant_length(child.iter)
                if inner > settings.TEMPLATE_MAX_ITERATIONS:
                    raise TemplateFailed(
                        f"Invalid template: its loops run {inner} times, more than "
                        f"{settings.TEMPLATE_MAX_ITERATIONS} (TEMPLATE_MAX_ITERATIONS)."
                    )
            walk(child, inner)

    walk(tree, 1)


def _constant_length(node) -> int:
    if (
        isinstance(node, nodes.Call)
        and isinstance(node.node, nodes.Name)
        and node.node.name == "range"
        and not node.kwargs
        and all(isinstance(a, nodes.Const) and isinstance(a.value, int) for a in node.args)
        and 1 <= len(node.args) <= 3
    ):
        try:
            return len(range(*(a.value for a in node.args)))
        except ValueError:
            return 1
    return 1


def check(source: str) -> None:
    """Raises TemplateFailed unless the template compiles within the bounds known when written."""
    compiled(source)


def render(source: str, context: dict) -> str:
    """The template rendered over `context` (values from `templatedata` and plain data) within
    the current budget (a fresh one when none is open)."""
    template = compiled(source)
    with budget():
        try:
            return template.render(**context)
        except TemplateFailed:
            raise
        except RecursionError:
            raise TemplateLimit("The template recursed too deeply.") from None
        except Exception as exc:  # a user's template fails at run time: its message, never a 500
            raise TemplateFailed(f"Template rendering failed: {exc}") from None
