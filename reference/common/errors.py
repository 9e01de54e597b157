"""Input errors that name the place (trace line / op / field) where the input is wrong."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: raised before anything runs, naming where and which field."""

    def __init__(self, where: str, field: str, message: str) -> None:
        self.where = where
        self.field = field
        self.message = message
        super().__init__(f"{where}: field '{field}': {message}")
