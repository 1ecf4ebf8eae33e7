"""Rates as people read them (`3.20k`, `1.05M`): the trainer's progress lines and the run report share them."""


def format_rate(value: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.2f}{unit}"
    return f"{value:.1f}"
