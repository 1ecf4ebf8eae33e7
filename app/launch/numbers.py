"""Whole numbers as the scheduler's environment and the knobs write them (standard library only)."""

from app.common.errors import UsageError


def is_whole(text: str) -> bool:
    """TEXT is ASCII digits only: what int() reads alike in bash and Python (str.isascii is 3.7+, and isdigit
    alone takes '١' or '²')."""
    return bool(text) and all("0" <= char <= "9" for char in text)


def whole(name: str, value: str, example: int = 4) -> int:
    """VALUE of the knob NAME as a number; a one-line UsageError naming the knob when it is not one."""
    if not is_whole(value):
        raise UsageError(f"{name}={value} is not a whole number; example: {name}={example}")
    return int(value)
