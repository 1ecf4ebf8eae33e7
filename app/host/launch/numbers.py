"""Whole numbers as the scheduler's environment and the knobs write them (standard library only)."""


def is_whole(text: str) -> bool:
    """TEXT is ASCII digits only: what int() reads alike in bash and Python (str.isascii is 3.7+, and isdigit
    alone takes '١' or '²')."""
    return bool(text) and all("0" <= char <= "9" for char in text)
