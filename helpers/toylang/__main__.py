"""`python -m helpers.toylang --write | --stats | --show N`: generate the course's translation data."""
from helpers.toylang.files import _main

if __name__ == "__main__":
    _main()
