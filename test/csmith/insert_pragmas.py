#!/usr/bin/env python3
"""Inserts `#pragma ccc_checkpoint [force]` lines into a csmith program.

A pragma goes only on a line boundary where a statement may stand: inside the braced body of a
function (or a block in it), right after `{`, a complete statement `;`, or a block's `}`, never
inside parentheses or initializer braces, never in front of `else` (or of `while` after `}`,
which may close a do-while). csmith writes one statement per line, so line boundaries are enough.

Usage: insert_pragmas.py SOURCE OUT --seed N [--count N] [--force-ratio F] [--main-site]
"""
import argparse
import random
import sys

# Kinds of open braces.
FUNCTION, BLOCK, INITIALIZER, AGGREGATE = "function", "block", "initializer", "aggregate"
STATEMENT_BRACES = (FUNCTION, BLOCK)


class Site:
    """A line boundary where a pragma may go: insert before line `line` (0-based)."""

    def __init__(self, line, function):
        self.line = line
        self.function = function

    def __repr__(self):
        return f"Site(line={self.line}, function={self.function})"


def _tokens(text):
    """Yields (kind, value, line) for the significant tokens of C `text`; kind is 'nl' for a
    newline outside comments and literals, 'id' for identifiers and keywords, 'punct' else."""
    i, n, line = 0, len(text), 0
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            yield ("nl", "\n", line)
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":
            # Preprocessor line, with continuations: not part of the grammar we track.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 2
                    continue
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            yield ("punct", "literal", line)
            i = j + 1
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield ("id", text[i:j], line)
            i = j
            continue
        if c.isdigit():
            j = i
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            yield ("punct", "number", line)
            i = j
            continue
        yield ("punct", c, line)
        i += 1


def find_sites(text):
    """All line boundaries of `text` where a pragma may stand, as Site objects."""
    sites = []
    braces = []  # stack of brace kinds
    parens = 0
    last = None  # last significant token value
    last_closed = None  # kind of the brace that `last == '}'` closed
    function_name = None
    candidate_name = None  # identifier before the last '(' at file scope
    pending = None  # (line, function) waiting for the next token to be checked
    previous_id = None

    for kind, value, line in _tokens(text):
        if kind == "nl":
            # A boundary is a site when everything before it is complete inside a statement block.
            if (pending is None and parens == 0 and braces and braces[-1] in STATEMENT_BRACES and
                    (last in (";", "{") or (last == "}" and last_closed in STATEMENT_BRACES))):
                pending = (line + 1, function_name, last)
            continue
        if pending is not None:
            site_line, site_function, before = pending
            pending = None
            blocked = value == "else" or (before == "}" and value == "while")
            if not blocked:
                sites.append(Site(site_line, site_function))
        if value == "(":
            if not braces and previous_id is not None:
                candidate_name = candidate_name or previous_id
            parens += 1
        elif value == ")":
            parens -= 1
        elif value == "{":
            if parens > 0:
                brace = INITIALIZER  # compound literal or statement expression
            elif not braces:
                brace = FUNCTION if last == ")" else (INITIALIZER if last == "=" else AGGREGATE)
                if brace == FUNCTION:
                    function_name = candidate_name
            elif braces[-1] in STATEMENT_BRACES:
                if last in (")", ";", "{", "}", "else", "do", ":"):
                    brace = BLOCK
                elif last in ("=", ","):
                    brace = INITIALIZER
                else:
                    brace = AGGREGATE
            else:
                brace = INITIALIZER if braces[-1] == INITIALIZER else AGGREGATE
            braces.append(brace)
        elif value == "}":
            last_closed = braces.pop() if braces else None
            if not braces:
                function_name = candidate_name = None
        elif value == ";" and not braces:
            candidate_name = None
        previous_id = value if kind == "id" else None
        last = value
    return sites


def insert(text, sites_with_force):
    """Returns `text` with one pragma line before each chosen site's line."""
    lines = text.split("\n")
    by_line = {}
    for site, force in sites_with_force:
        by_line.setdefault(site.line, []).append(force)
    out = []
    for number, body in enumerate(lines):
        for force in by_line.get(number, []):
            out.append("#pragma ccc_checkpoint force" if force else "#pragma ccc_checkpoint")
        out.append(body)
    return "\n".join(out)


def choose(sites, rng, count, force_ratio, main_site):
    """Picks `count` distinct sites (one of them in main when `main_site`), each forced with
    probability `force_ratio`. Returns a list of (Site, force) sorted by line."""
    chosen = []
    if main_site:
        in_main = [s for s in sites if s.function == "main"]
        if in_main:
            chosen.append(rng.choice(in_main))
    others = [s for s in sites if s not in chosen]
    chosen += rng.sample(others, min(len(others), max(0, count - len(chosen))))
    return sorted(((s, rng.random() < force_ratio) for s in chosen), key=lambda p: p[0].line)


def choose_profiled(sites, visits, rng, count, force_ratio, main_site, max_forced):
    """Like choose(), knowing how often an uninterrupted run passes each site (`visits`, same
    order as `sites`): most picks are sites the run reaches, and a site is forced only while
    the forced pragmas together stay within `max_forced` checkpoints."""
    reached = [i for i, n in enumerate(visits) if n > 0]
    unreached = [i for i, n in enumerate(visits) if n == 0]
    picked = []
    if main_site:
        in_main = [i for i in reached if sites[i].function == "main"]
        if in_main:
            picked.append(rng.choice(in_main))
    while len(picked) < count and (reached or unreached):
        pool = reached if reached and (not unreached or rng.random() < 0.75) else unreached
        index = pool.pop(rng.randrange(len(pool)))
        if index not in picked:
            picked.append(index)
    forced_total = 0
    chosen = []
    for index in sorted(picked, key=lambda i: sites[i].line):
        force = rng.random() < force_ratio and forced_total + visits[index] <= max_forced
        if force:
            forced_total += visits[index]
        chosen.append((sites[index], force))
    return chosen


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--force-ratio", type=float, default=0.5)
    parser.add_argument("--main-site", action="store_true",
                        help="put one of the pragmas in main")
    parser.add_argument("--list", action="store_true", help="print every possible site and exit")
    args = parser.parse_args(argv)
    with open(args.source) as f:
        text = f.read()
    sites = find_sites(text)
    if args.list:
        for site in sites:
            print(f"{site.line + 1}\t{site.function}")
        return 0
    chosen = choose(sites, random.Random(args.seed), args.count, args.force_ratio, args.main_site)
    with open(args.out, "w") as f:
        f.write(insert(text, chosen))
    for site, force in chosen:
        print(f"line {site.line + 1} in {site.function}: {'force' if force else 'plain'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
