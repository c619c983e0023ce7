#!/usr/bin/env python3
"""shown_twice.py <actual> <expected> <restart stderr>... [--exactly]

A process killed between writing output to stdout and recording it makes its restart show those
bytes again, and c3 warns on stderr how many they are (the restart cannot tell whether they
arrived): "c3: warning: rank R was killed while showing N bytes of its output ..." (MPI) or
"c3: warning: the process was killed while showing N bytes ...". With no such warning in the
stderr files, <actual> must equal <expected>. With warnings for N bytes in all, <actual> may
also be <expected> with one block of at most N bytes shown twice in a row:
expected[:p] + expected[p - d:] for some p and 0 < d <= N. With --exactly, a warning must be
there, and the block must be exactly N bytes long (the kill came after the whole write).
Exit 0 when the output passes, 1 when not (saying why), 2 on bad usage.
"""
import re
import sys

WARNING = re.compile(
    rb"^c3: warning: (?:rank [0-9]+|the process) was killed while showing ([0-9]+) bytes "
    rb"of its output", re.MULTILINE)


def warned_bytes(paths):
    total = 0
    for path in paths:
        with open(path, "rb") as f:
            total += sum(int(n) for n in WARNING.findall(f.read()))
    return total


def shown_twice_at(actual: bytes, expected: bytes, d: int):
    """The end p of a block of d bytes shown twice, or None."""
    if d <= 0 or len(actual) != len(expected) + d:
        return None
    # Up to p, actual and expected agree: the first difference bounds p.
    first = next((i for i in range(len(expected)) if actual[i] != expected[i]), len(expected))
    for p in range(d, first + 1):
        if actual[p:] == expected[p - d:]:
            return p
    return None


def main() -> int:
    args = sys.argv[1:]
    exactly = "--exactly" in args
    args = [a for a in args if a != "--exactly"]
    if len(args) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    with open(args[0], "rb") as f:
        actual = f.read()
    with open(args[1], "rb") as f:
        expected = f.read()
    limit = warned_bytes(args[2:])
    if limit == 0:
        if exactly:
            print("no restart warned that output may appear twice")
            return 1
        if actual != expected:
            print("output differs from the reference, and no restart warned of a repeat")
            return 1
        return 0
    d = len(actual) - len(expected)
    if d == 0 and actual == expected and not exactly:
        return 0
    if d <= 0 or d > limit or (exactly and d != limit):
        want = f"exactly {limit}" if exactly else f"at most {limit}"
        print(f"{d} bytes more than the reference; c3 warned that {want} may be shown twice")
        return 1
    p = shown_twice_at(actual, expected, d)
    if p is None:
        print(f"the {d} extra bytes are not a block of the reference shown twice in a row")
        return 1
    print(f"bytes {p - d} to {p} of the reference shown twice, as c3 warned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
