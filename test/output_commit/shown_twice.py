#!/usr/bin/env python3
"""shown_twice.py <actual> <expected> <bytes> [--exactly]

A rank killed between writing output to stdout and recording it makes the restart show those
bytes again, and c3 warns how many they are (the restart cannot tell whether they arrived).
Passes when <actual> is <expected>, or <expected> with one block of at most <bytes> bytes shown
twice in a row: expected[:p] + expected[p - d:] for some p and 0 < d <= bytes. With --exactly,
the block must be there and be exactly <bytes> long (the kill came after the whole write).
"""
import sys


def shown_twice_at(actual: bytes, expected: bytes, d: int):
    """The end of the block shown twice (p), or None."""
    if d <= 0 or len(actual) != len(expected) + d:
        return None
    # The first difference bounds p from below: actual and expected agree up to p.
    first = next((i for i in range(len(expected)) if actual[i] != expected[i]), len(expected))
    for p in range(d, min(first, len(expected)) + 1):
        if actual[:p] == expected[:p] and actual[p:] == expected[p - d:]:
            return p
    return None


def main() -> int:
    args = sys.argv[1:]
    exactly = "--exactly" in args
    args = [a for a in args if a != "--exactly"]
    if len(args) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    with open(args[0], "rb") as f:
        actual = f.read()
    with open(args[1], "rb") as f:
        expected = f.read()
    limit = int(args[2])
    d = len(actual) - len(expected)
    if actual == expected and not exactly:
        return 0
    if d <= 0 or d > limit or (exactly and d != limit):
        want = f"exactly {limit}" if exactly else f"0 to {limit}"
        print(f"{d} bytes more than the reference; {want} may be shown twice")
        return 1
    p = shown_twice_at(actual, expected, d)
    if p is None:
        print(f"the {d} extra bytes are not a block of the reference shown twice in a row")
        return 1
    print(f"bytes {p - d} to {p} of the reference shown twice, as c3 warned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
