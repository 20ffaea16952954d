"""Natural ordering of names: `eth2` before `eth10`, `Gi1/0/2` before `Gi1/0/10`."""

import re

DIGITS = re.compile(r"\d+")
WIDTH = 8


def naturalize(name: str | None, max_length: int = 255) -> str | None:
    """A sort key for `name` in which every run of digits is zero-padded to a fixed width."""
    if name is None:
        return None
    return DIGITS.sub(lambda m: m.group().rjust(WIDTH, "0"), name)[:max_length]
