"""``python -m verifier ...`` is the ``verify`` command."""

from .cli import main

main(prog_name="verify")
