#!/usr/bin/env python3
"""Generates a random, deadlock-free MPI program of collectives and point-to-point messages on
several communicators, with derived datatypes and user-defined operators, for the c3 tests.

  gen_coll.py --seed S --ranks N [--steps K] [--kinds coll,icoll,...] [--avoid F,...]
              [--mode forced|interval] [-o prog.c] [--describe]

The program runs K steps, each a phase of one kind (see KINDS). Every choice derives from
(seed, ranks, options), so they reproduce the program.

Deadlock freedom: the generator appends operations to one global order of elements. An element
is either local (starting a nonblocking operation, completing requests whose partners started
in earlier elements, creating datatypes, a checkpoint point) or involves a set of ranks that
all take part in it at that position (a blocking collective and its members, a blocking message
and its two ends, a communicator creation). Each rank executes its parts in that order, so the
earliest unfinished element can always finish, even when every send is synchronous and every
collective synchronizes. Messages: tags are unique per step (step * 128 + i); MPI_ANY_SOURCE is
used only with a tag whose messages to that rank are all received that way, MPI_ANY_TAG only
for the one message a source sends to that rank on that communicator in the step.

Determinism: every buffer's content is a function of (call, sender, receiver, element) alone;
each rank computes what each receive buffer must hold (gaps of derived datatypes included),
aborts with a message on a mismatch, and folds a hash into `acc` (a sum, so arrival order does
not matter). Reductions use integer values (doubles hold integers below 2^41), so results do not
depend on the reduction order; non-commutative operators are applied in rank order as MPI says.
Some steps also reduce the ranks' `acc` (unchecked, folded). Rank 0 alone prints one line per
step and every rank's checksum at the end.

Checkpoints, by mode: `forced` (each rank has one or two `#pragma ccc_checkpoint force` at a
(step, point) of its own, some between the start and the completion of nonblocking collectives;
unforced pragmas end every step and sit at some points and polling loops) or `interval` (no
forced pragma; every point is an unforced pragma, and the harness runs the program with a small
C3_INTERVAL).

Environment of the generated program (testing aids, no effect on stdout):
  MPI_RANDOM_JITTER=<n>  random short sleeps at many points, to shake the matching order;
  MPI_RANDOM_TRACE=1     one stderr line per received message.
"""
import argparse
import json
import math
import random
import sys

from common import C_HELPERS, Code

TAGS_PER_STEP = 128
MAX_MESSAGE_TAGS = 110
GROUP_TAG = 120         # MPI_Comm_create_group: base + 120 + i
MAX_STEPS = 240
SPAN_CAP = 96 * 1024    # bytes of one buffer
MAX_COMMS = 10          # live communicators (MPI_COMM_WORLD and MPI_COMM_SELF included)
MAX_DERIVED = 9         # live derived datatypes

KINDS = {
    "coll": "blocking collectives on several communicators, some blocking messages between them",
    "icoll": "nonblocking collectives and messages, blocking ones in between, completed by "
             "Wait/Test loops/Waitall/...",
    "comm": "communicator creation (Comm_split, Comm_dup, Comm_create(_group), Cart_create, "
            "Cart_sub) and MPI_Comm_free, then collectives on the new ones",
    "neighbor": "neighbourhood collectives on a cartesian communicator",
    "p2p": "point-to-point messages on several communicators with derived datatypes",
}
KIND_WEIGHTS = {"coll": 28, "icoll": 30, "comm": 12, "neighbor": 12, "p2p": 18}

# Blocking collectives: name -> (shape, nonblocking name)
COLLECTIVES = {
    "Barrier": "barrier", "Bcast": "bcast", "Gather": "gather", "Gatherv": "gatherv",
    "Scatter": "scatter", "Scatterv": "scatterv", "Allgather": "allgather",
    "Allgatherv": "allgatherv", "Alltoall": "alltoall", "Alltoallv": "alltoallv",
    "Alltoallw": "alltoallw", "Reduce": "reduce", "Allreduce": "allreduce",
    "Reduce_scatter": "reduce_scatter", "Reduce_scatter_block": "reduce_scatter_block",
    "Scan": "scan", "Exscan": "exscan",
}
NEIGHBOR = {
    "Neighbor_allgather": "neighbor_allgather", "Neighbor_allgatherv": "neighbor_allgatherv",
    "Neighbor_alltoall": "neighbor_alltoall", "Neighbor_alltoallv": "neighbor_alltoallv",
    "Neighbor_alltoallw": "neighbor_alltoallw",
}
COLL_WEIGHTS = {
    "Barrier": 4, "Bcast": 8, "Gather": 6, "Gatherv": 6, "Scatter": 6, "Scatterv": 6,
    "Allgather": 6, "Allgatherv": 6, "Alltoall": 6, "Alltoallv": 6, "Alltoallw": 5, "Reduce": 8,
    "Allreduce": 10, "Reduce_scatter": 5, "Reduce_scatter_block": 5, "Scan": 6, "Exscan": 6,
}

FEATURES = {
    "inplace": "MPI_IN_PLACE",
    "derived": "derived datatypes (every buffer of a predefined type)",
    "typefree": "MPI_Type_free",
    "userop": "user-defined operators (MPI_Op_create)",
    "nonblocking": "nonblocking collectives (the I* forms)",
    "neighbor": "neighbourhood collectives (also leaves out the neighbor kind)",
    "split": "MPI_Comm_split", "dup": "MPI_Comm_dup",
    "create": "MPI_Comm_create, MPI_Comm_create_group",
    "cart": "MPI_Cart_create, MPI_Cart_sub (also leaves out neighbourhood collectives)",
    "commfree": "MPI_Comm_free",
    "subcomm": "every communicator but MPI_COMM_WORLD (and MPI_COMM_SELF)",
    "self": "MPI_COMM_SELF",
    "p2p": "point-to-point messages (but the final checksums)",
    "anysource": "MPI_ANY_SOURCE", "anytag": "MPI_ANY_TAG",
    "probe": "MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe",
    "polling": "Test loops (MPI_Test*, MPI_Iprobe, MPI_Improbe)",
    "persistent": "MPI_Send_init, MPI_Recv_init, MPI_Start",
    "state": "reductions of the ranks' checksums",
}
# Any collective's name (lower case) can be avoided too: "gatherv" leaves out MPI_Gatherv and
# MPI_Igatherv, "igatherv" only the latter.
for _n in list(COLLECTIVES) + list(NEIGHBOR):
    FEATURES[_n.lower()] = f"MPI_{_n} and MPI_I{_n[0].lower()}{_n[1:]}"
    FEATURES["i" + _n.lower()] = f"MPI_I{_n[0].lower()}{_n[1:]}"
FEATURES["ibarrier"] = "MPI_Ibarrier"

# Predefined datatypes: types[0..5] (the order of setup() in the program)
B_INT, B_UNSIGNED, B_LONG, B_DOUBLE, B_2INT, B_U64 = range(6)
BASE_NAMES = ["B_INT", "B_UNSIGNED", "B_LONG", "B_DOUBLE", "B_2INT", "B_U64"]
BASE_SIZE = [4, 4, 8, 8, 8, 8]
PREDEFINED_TYPES = ["MPI_INT", "MPI_UNSIGNED", "MPI_LONG", "MPI_DOUBLE", "MPI_2INT", "MPI_UINT64_T"]
# Predefined operators: ops[0..8]; (MPI name, C kind, the bases it applies to). MPICH 4.0.2
# computes MPI_MAX and MPI_MIN of unsigned types as if they were signed: not used on them.
PREDEFINED_OPS = [
    ("MPI_SUM", "OP_SUM", {B_UNSIGNED, B_LONG, B_DOUBLE, B_U64}),
    ("MPI_PROD", "OP_PROD", {B_UNSIGNED}),
    ("MPI_MAX", "OP_MAX", {B_INT, B_LONG, B_DOUBLE}),
    ("MPI_MIN", "OP_MIN", {B_INT, B_LONG, B_DOUBLE}),
    ("MPI_BAND", "OP_BAND", {B_INT, B_UNSIGNED}),
    ("MPI_BOR", "OP_BOR", {B_INT, B_UNSIGNED}),
    ("MPI_BXOR", "OP_BXOR", {B_INT, B_UNSIGNED, B_U64}),
    ("MPI_MAXLOC", "OP_MAXLOC", {B_2INT}),
    ("MPI_MINLOC", "OP_MINLOC", {B_2INT}),
]
# User-defined operators on int-based datatypes: (C function, C kind, commutative)
USER_OPS = [("uop_mat", "OP_MAT", False), ("uop_badd", "OP_BADD", True),
            ("uop_umax", "OP_UMAX", True)]
MAX_OPS = 16

COMPLETIONS = ["Wait", "Waitall", "Waitany", "Waitsome", "Testall", "Testany", "Testsome", "Test"]


def lcm(a, b):
    return a * b // math.gcd(a, b)


class DType:
    """A datatype: base elements at byte offsets `offs` (type-map order) in each element; element
    i of a buffer starts at i * extent."""

    def __init__(self, index, base, offs, lb, extent, how, predefined=None):
        self.index, self.base, self.offs, self.lb, self.extent = index, base, offs, lb, extent
        self.n = len(offs)
        self.end = max(offs) + BASE_SIZE[base]
        self.how = how
        self.predefined = predefined
        self.alive = True
        self.committed = predefined is not None
        self.parents = []

    def span(self, count):
        return 0 if count <= 0 else (count - 1) * self.extent + self.end

    def tiles(self):
        """No two base elements of any number of consecutive elements overlap (so the type can
        receive)."""
        if len(set(self.offs)) != self.n or self.extent <= 0 or self.extent % 4:
            return False
        if any(o % 4 or o < 0 for o in self.offs):
            return False
        size = BASE_SIZE[self.base]
        copies = self.end // self.extent + 2
        cells = set()
        for c in range(copies):
            for o in self.offs:
                for b in range(0, size, 4):
                    x = c * self.extent + o + b
                    if x in cells:
                        return False
                    cells.add(x)
        return True

    def name(self):
        return f"types[{self.index}]"


class Comm:
    """A communicator variable comms[index]: disjoint groups of world ranks (each in comm-rank
    order); ranks in none of them hold MPI_COMM_NULL. `cart`: (dims, periods) of every group."""

    def __init__(self, index, groups, how, cart=None):
        self.index, self.groups, self.how, self.cart = index, groups, how, cart
        self.alive = True

    def where(self, r):
        """(group index, comm rank) of world rank r, or None."""
        for gi, g in enumerate(self.groups):
            if r in g:
                return gi, g.index(r)
        return None

    def members(self):
        return sorted(r for g in self.groups for r in g)

    def name(self):
        return f"comms[{self.index}]"


def cart_coords(i, dims):
    coords = []
    for d in reversed(dims):
        coords.append(i % d)
        i //= d
    return list(reversed(coords))


def cart_rank(coords, dims):
    i = 0
    for c, d in zip(coords, dims):
        i = i * d + c
    return i


def cart_neighbors(i, dims, periods):
    """Comm ranks of the 2 * ndims neighbours of comm rank i (-1: MPI_PROC_NULL), in MPI's order:
    for each dimension the one in the negative direction, then the positive one."""
    out = []
    coords = cart_coords(i, dims)
    for d in range(len(dims)):
        for step in (-1, 1):
            c = list(coords)
            c[d] += step
            if 0 <= c[d] < dims[d]:
                out.append(cart_rank(c, dims))
            elif periods[d]:
                c[d] %= dims[d]
                out.append(cart_rank(c, dims))
            else:
                out.append(-1)
    return out


class Pending:
    """A started operation of one rank: its slot and the C lines that check and release it once
    complete."""

    def __init__(self, slot, check, what):
        self.slot, self.check, self.what = slot, check, what


class Step:
    def __init__(self, prog, index, kind):
        self.prog, self.index, self.kind = prog, index, kind
        self.rng = prog.rng
        self.n = prog.ranks
        self.code = {r: Code() for r in range(self.n)}
        self.expect = {r: [] for r in range(self.n)}   # (comm, src, tag, type, count)
        self.points = {r: [] for r in range(self.n)}   # (point, site, inside a pending collective)
        self.pending = {r: [] for r in range(self.n)}
        self.slots = {r: 0 for r in range(self.n)}
        self.next_tag = 0
        self.next_group_tag = 0
        self.messages = []   # (comm index, src world rank, dst world rank, tag placeholder id)
        self.any_tag = {}    # placeholder id -> (comm, src, dst, tag)
        self.names = []
        self.statics = []    # file-scope C lines the step's code uses
        self.handle_checks = {r: [] for r in range(self.n)}

    # --- helpers ----------------------------------------------------------------------------

    def avoids(self, f):
        return f in self.prog.avoid

    def new_tag(self):
        assert self.next_tag < MAX_MESSAGE_TAGS
        tag = self.index * TAGS_PER_STEP + self.next_tag
        self.next_tag += 1
        return tag

    def poll_flag(self):
        return 1 if self.rng.random() < 0.5 else 0

    def point(self, r, inside=False, site=None):
        """A checkpoint point of rank r (the plan decides where the forced ones are)."""
        p = len(self.points[r]) + 1
        if site is None:
            site = 1 if self.rng.random() < 0.4 else 0
        self.points[r].append((p, site, inside))
        self.code[r](f"checkpoint_point({self.index}, {p}, {site});")

    def maybe_points(self, ranks, p=0.5):
        for r in sorted(set(ranks)):
            if self.rng.random() < p:
                self.point(r, inside=bool(self.pending[r]))
            if self.rng.random() < 0.3:
                self.code[r]("pause_maybe();")

    def new_slot(self, r):
        s = self.slots[r]
        self.slots[r] += 1
        return s

    def rand_count(self, big=True):
        x = self.rng.random()
        if x < 0.06:
            return 0
        if x < 0.62:
            return self.rng.randint(1, 12)
        if x < 0.92 or not big:
            return self.rng.randint(13, 300)
        return self.rng.randint(300, 3000)

    def int_types(self):
        """Live committed int-based datatypes (MPI_INT first)."""
        out = [self.prog.types[0]]
        if not self.avoids("derived"):
            out += [t for t in self.prog.types[6:] if t.alive and t.committed and t.base == B_INT]
        return out

    def pick_type(self, m, mult=1, cands=None):
        """A datatype t and count c with c * t.n == m ints whose buffer of mult * c elements
        fits; MPI_INT in about half the cases."""
        cands = cands or self.int_types()
        ok = [t for t in cands if m % t.n == 0 and t.span(m // t.n * mult) <= SPAN_CAP]
        derived = [t for t in ok if t.index != 0]
        if derived and self.rng.random() < 0.6:
            t = self.rng.choice(derived)
        else:
            t = self.prog.types[0]
        return t, m // t.n

    def pick_m(self, mult=1):
        """Ints in a block: a multiple of a derived type's size now and then."""
        c = self.rand_count()
        derived = [t for t in self.int_types() if t.index != 0]
        if derived and self.rng.random() < 0.6:
            t = self.rng.choice(derived)
            c = min(c, 40)
            if t.span(c * mult) <= SPAN_CAP:
                return c * t.n
        return c

    def pick_small_type(self, limit=12):
        ok = [t for t in self.int_types() if t.n <= limit]
        t = self.rng.choice(ok) if self.rng.random() < 0.6 else self.prog.types[0]
        return t

    def layout(self, t, counts, gap=True):
        """Displacements (in extents of t) of blocks of counts[i] elements that do not overlap,
        in a random order with random gaps; returns (displs, total elements)."""
        order = list(range(len(counts)))
        self.rng.shuffle(order)
        displs = [0] * len(counts)
        pos = 0
        for i in order:
            if gap and self.rng.random() < 0.4:
                pos += self.rng.randint(1, 3)
            displs[i] = pos
            if counts[i] > 0:
                pos += -(-t.span(counts[i]) // t.extent)
        return displs, pos

    def byte_layout(self, spans):
        """Byte displacements (multiples of 8) of blocks of the given spans, no overlap."""
        order = list(range(len(spans)))
        self.rng.shuffle(order)
        displs = [0] * len(spans)
        pos = 0
        for i in order:
            if self.rng.random() < 0.4:
                pos += 8 * self.rng.randint(1, 3)
            displs[i] = pos
            pos += (spans[i] + 7) // 8 * 8
        return displs, pos

    def static_array(self, name, ctype, values):
        self.statics.append(f"static const {ctype} {name}[] = {{{', '.join(map(str, values)) or '0'}}};")
        return name

    def comm_choice(self, min_size=1, need_cart=False):
        """A live communicator variable (weighted towards MPI_COMM_WORLD)."""
        cands = []
        for c in self.prog.comms:
            if not c.alive or not c.groups or (need_cart and not c.cart):
                continue
            if c.index == 1 and (self.avoids("self") or min_size > 1 or need_cart):
                continue
            if max(len(g) for g in c.groups) < min_size:
                continue
            if c.index > 1 and self.avoids("subcomm"):
                continue
            cands.append(c)
        if not cands:
            return None
        weights = [6 if c.index == 0 else (1 if c.index == 1 else 4) for c in cands]
        return self.rng.choices(cands, weights)[0]

    # --- collectives ------------------------------------------------------------------------

    def allowed_collectives(self, nonblocking, names):
        out = []
        for name in names:
            low = name.lower()
            if low in self.prog.avoid or (nonblocking and "i" + low in self.prog.avoid):
                continue
            if name.endswith(("v", "w")) and low not in ("allgatherv", "gatherv", "scatterv",
                                                         "alltoallv", "alltoallw",
                                                         "neighbor_allgatherv",
                                                         "neighbor_alltoallv",
                                                         "neighbor_alltoallw"):
                continue
            out.append(name)
        return out

    def collective(self, comm=None, nonblocking=False, name=None, neighbor=False):
        """One collective on a communicator variable (each group its own call), blocking or
        started (then pending on every member)."""
        if nonblocking and self.avoids("nonblocking"):
            nonblocking = False
        if comm is None:
            comm = self.comm_choice(need_cart=neighbor)
        if comm is None:
            return False
        if name is None:
            if neighbor:
                names = self.allowed_collectives(nonblocking, list(NEIGHBOR))
                weights = [1] * len(names)
            else:
                names = self.allowed_collectives(nonblocking, list(COLLECTIVES))
                weights = [COLL_WEIGHTS[x] for x in names]
            if not names:
                return False
            name = self.rng.choices(names, weights)[0]
        call = self.prog.new_call()
        if name == "State":
            full = f"MPI_{'Iallreduce' if nonblocking else 'Allreduce'} (state)"
        else:
            full = "MPI_" + ("I" + name[0].lower() + name[1:] if nonblocking else name)
        parts = {}
        self.nonblocking = nonblocking
        for gi, group in enumerate(comm.groups):
            g = len(group)
            key = f"KEY({call * 16 + gi})"
            build = getattr(self, "coll_" + name.lower())
            per = build(group, key, call, comm, gi)
            if per is None:
                return False
            parts.update(per)
        self.names.append(f"{full[4:].split(' ')[0] if name != 'State' else 'state'}@c{comm.index}")
        for r in comm.members():
            setup, args, check = parts[r]
            c = self.code[r]
            if nonblocking:
                s = self.new_slot(r)
                p = f"sl[{s}]."
                c(f"/* call {call}: {full} on comm {comm.index} */", f"sl[{s}] = empty_slot;")
                c(*[x.replace("@P", p) for x in setup])
                c(f"{full.split(' ')[0]}({', '.join(a.replace('@P', p) for a in args)}, &req[{s}]);")
                chk = [x.replace("@P", p) for x in check]
                chk += [f"free(sl[{s}].sb);", f"free(sl[{s}].rb);", "coll_done();"]
                self.pending[r].append(Pending(s, chk, full))
            else:
                c.open(f"{{ /* call {call}: {full} on comm {comm.index} */")
                c("struct slot x = empty_slot;", f"current_call = {call};")
                c(*[x.replace("@P", "x.") for x in setup])
                c(f"{full.split(' ')[0]}({', '.join(a.replace('@P', 'x.') for a in args)});")
                c(*[x.replace("@P", "x.") for x in check])
                c("free(x.sb);", "free(x.rb);", "coll_done();")
                c.close()
        return True

    def inplace(self):
        return not self.avoids("inplace") and self.rng.random() < 0.3

    def image(self, lines, t, count, puts, got, call, what, bytes_=None):
        """C lines: build the expected image of `got` (puts: put_block/put_reduced argument
        tails after the image) and compare."""
        lines.append("{")
        lines.append(f"  void *w = t_new({t.index}, {count});")
        for p in puts:
            lines.append(f"  {p[0]}(w, {p[1]});")
        n = t.span(count) if bytes_ is None else bytes_
        lines.append(f'  expect_bytes({got}, w, {n}, {call}, "{what}");')
        lines.append("}")

    def byte_image(self, lines, total, puts, got, call, what):
        lines.append("{")
        lines.append(f"  void *w = bytes_new({total});")
        for p in puts:
            lines.append(f"  {p[0]}(w, {p[1]});")
        lines.append(f'  expect_bytes({got}, w, {total}, {call}, "{what}");')
        lines.append("}")

    def coll_barrier(self, group, key, call, comm, gi):
        return {r: ([], [comm.name()], []) for r in group}

    def coll_state(self, group, key, call, comm, gi):
        op = self.rng.choice(["MPI_SUM", "MPI_BXOR"])
        out = {}
        for r in group:
            out[r] = (["@Prb = malloc(sizeof(uint64_t));"],
                      ["&step_state", "@Prb", "1", "MPI_UINT64_T", op, comm.name()],
                      [f"acc += mix64(*(uint64_t *)@Prb ^ {call});"])
        return out

    def coll_bcast(self, group, key, call, comm, gi):
        g = len(group)
        root = self.rng.randrange(g)
        m = self.pick_m()
        out = {}
        for i, r in enumerate(group):
            t, c = self.pick_type(m)
            setup = [f"@Prb = t_new({t.index}, {c});"]
            if i == root:
                setup.append(f"put_block(@Prb, 0, {t.index}, {c}, {key}, {root}, -1, 0);")
            out[r] = (setup, ["@Prb", str(c), t.name(), str(root), comm.name()],
                      [f'expect_block(@Prb, {t.index}, {c}, {key}, {root}, -1, {call}, "buffer");'])
        return out

    def send_block(self, setup, check, t, c, key, s, d, call, what="send buffer", var="@Psb", off=0,
                   count_total=None):
        """Fills a send buffer with one block and checks afterwards that it is unchanged."""
        if count_total is None:
            setup.append(f"{var} = t_new({t.index}, {c});")
        setup.append(f"put_block({var}, {off}, {t.index}, {c}, {key}, {s}, {d}, 0);")
        if count_total is None:
            check.append(f'expect_block({var}, {t.index}, {c}, {key}, {s}, {d}, {call}, "{what}");')

    def coll_gather(self, group, key, call, comm, gi):
        g = len(group)
        root = self.rng.randrange(g)
        m = self.pick_m(mult=g)
        rt, rc = self.pick_type(m, mult=g)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            st, sc = self.pick_type(m)
            setup, check = [], []
            if i != root or not inplace:
                self.send_block(setup, check, st, sc, key, i, -1, call)
                send = ["@Psb", str(sc), st.name()]
            else:
                send = ["MPI_IN_PLACE", "0", "MPI_INT"]
            if i == root:
                setup.append(f"@Prb = t_new({rt.index}, {g * rc});")
                if inplace:
                    setup.append(f"put_block(@Prb, {i * rc * rt.extent}, {rt.index}, {rc}, {key}, {i}, -1, 0);")
                self.image(check, rt, g * rc,
                           [("put_block", f"{s * rc * rt.extent}, {rt.index}, {rc}, {key}, {s}, -1, 0")
                            for s in range(g)], "@Prb", call, "receive buffer")
                recv = ["@Prb", str(rc), rt.name()]
            else:
                recv = ["NULL", "0", "MPI_INT"]
            out[r] = (setup, send + recv + [str(root), comm.name()], check)
        return out

    def coll_gatherv(self, group, key, call, comm, gi):
        g = len(group)
        root = self.rng.randrange(g)
        rt = self.pick_small_type()
        ms = [rt.n * min(self.rand_count(), 600) for _ in range(g)]
        rcs = [m // rt.n for m in ms]
        rd, total = self.layout(rt, rcs)
        if rt.span(total) > SPAN_CAP:
            rt = self.prog.types[0]
            rcs = ms
            rd, total = self.layout(rt, rcs)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            st, sc = self.pick_type(ms[i])
            setup, check = [], []
            if i != root or not inplace:
                self.send_block(setup, check, st, sc, key, i, -1, call)
                send = ["@Psb", str(sc), st.name()]
            else:
                send = ["MPI_IN_PLACE", "0", "MPI_INT"]
            if i == root:
                rc_name = self.static_array(f"c{call}_{gi}_rc", "int", rcs)
                rd_name = self.static_array(f"c{call}_{gi}_rd", "int", rd)
                setup.append(f"@Prb = t_new({rt.index}, {total});")
                if inplace:
                    setup.append(f"put_block(@Prb, {rd[i] * rt.extent}, {rt.index}, {rcs[i]}, {key}, {i}, -1, 0);")
                self.image(check, rt, total,
                           [("put_block", f"{rd[s] * rt.extent}, {rt.index}, {rcs[s]}, {key}, {s}, -1, 0")
                            for s in range(g)], "@Prb", call, "receive buffer")
                recv = ["@Prb", rc_name, rd_name, rt.name()]
            else:
                recv = ["NULL", "NULL", "NULL", "MPI_INT"]
            out[r] = (setup, send + recv + [str(root), comm.name()], check)
        return out

    def coll_scatter(self, group, key, call, comm, gi):
        g = len(group)
        root = self.rng.randrange(g)
        m = self.pick_m(mult=g)
        st, sc = self.pick_type(m, mult=g)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            rt, rc = self.pick_type(m)
            setup, check = [], []
            if i == root:
                setup.append(f"@Psb = t_new({st.index}, {g * sc});")
                puts = [f"{d * sc * st.extent}, {st.index}, {sc}, {key}, {i}, {d}, 0" for d in range(g)]
                setup += [f"put_block(@Psb, {p});" for p in puts]
                self.image(check, st, g * sc, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
                send = ["@Psb", str(sc), st.name()]
            else:
                send = ["NULL", "0", "MPI_INT"]
            if i == root and inplace:
                recv = ["MPI_IN_PLACE", "0", "MPI_INT"]
            else:
                setup.append(f"@Prb = t_new({rt.index}, {rc});")
                check.append(f'expect_block(@Prb, {rt.index}, {rc}, {key}, {root}, {i}, {call}, "receive buffer");')
                recv = ["@Prb", str(rc), rt.name()]
            out[r] = (setup, send + recv + [str(root), comm.name()], check)
        return out

    def coll_scatterv(self, group, key, call, comm, gi):
        g = len(group)
        root = self.rng.randrange(g)
        st = self.pick_small_type()
        ms = [st.n * min(self.rand_count(), 600) for _ in range(g)]
        scs = [m // st.n for m in ms]
        sd, total = self.layout(st, scs)
        if st.span(total) > SPAN_CAP:
            st = self.prog.types[0]
            scs = ms
            sd, total = self.layout(st, scs)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            rt, rc = self.pick_type(ms[i])
            setup, check = [], []
            if i == root:
                sc_name = self.static_array(f"c{call}_{gi}_sc", "int", scs)
                sd_name = self.static_array(f"c{call}_{gi}_sd", "int", sd)
                setup.append(f"@Psb = t_new({st.index}, {total});")
                puts = [f"{sd[d] * st.extent}, {st.index}, {scs[d]}, {key}, {i}, {d}, 0" for d in range(g)]
                setup += [f"put_block(@Psb, {p});" for p in puts]
                self.image(check, st, total, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
                send = ["@Psb", sc_name, sd_name, st.name()]
            else:
                send = ["NULL", "NULL", "NULL", "MPI_INT"]
            if i == root and inplace:
                recv = ["MPI_IN_PLACE", "0", "MPI_INT"]
            else:
                setup.append(f"@Prb = t_new({rt.index}, {rc});")
                check.append(f'expect_block(@Prb, {rt.index}, {rc}, {key}, {root}, {i}, {call}, "receive buffer");')
                recv = ["@Prb", str(rc), rt.name()]
            out[r] = (setup, send + recv + [str(root), comm.name()], check)
        return out

    def coll_allgather(self, group, key, call, comm, gi):
        g = len(group)
        m = self.pick_m(mult=g)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            st, sc = self.pick_type(m)
            rt, rc = self.pick_type(m, mult=g)
            setup, check = [], []
            setup.append(f"@Prb = t_new({rt.index}, {g * rc});")
            if inplace:
                setup.append(f"put_block(@Prb, {i * rc * rt.extent}, {rt.index}, {rc}, {key}, {i}, -1, 0);")
                send = ["MPI_IN_PLACE", "0", "MPI_INT"]
            else:
                self.send_block(setup, check, st, sc, key, i, -1, call)
                send = ["@Psb", str(sc), st.name()]
            self.image(check, rt, g * rc,
                       [("put_block", f"{s * rc * rt.extent}, {rt.index}, {rc}, {key}, {s}, -1, 0")
                        for s in range(g)], "@Prb", call, "receive buffer")
            out[r] = (setup, send + ["@Prb", str(rc), rt.name(), comm.name()], check)
        return out

    def unit_types(self, k):
        """k receive types whose sizes have a small common multiple u; returns (types, u)."""
        ts = [self.pick_small_type(8) for _ in range(k)]
        u = 1
        for t in ts:
            u = lcm(u, t.n)
        if u > 24:
            ts = [self.prog.types[0] for _ in range(k)]
            u = 1
        return ts, u

    def coll_allgatherv(self, group, key, call, comm, gi):
        g = len(group)
        rts, u = self.unit_types(g)
        ms = [u * min(self.rand_count(), 400 // u + 1) for _ in range(g)]
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            rt = rts[i]
            rcs = [m // rt.n for m in ms]
            # MPICH 4.0.2's (I)allgatherv on one process ignores the displacement
            rd, total = self.layout(rt, rcs, gap=g > 1)
            if rt.span(total) > SPAN_CAP:
                return None
            st, sc = self.pick_type(ms[i])
            setup, check = [], []
            rc_name = self.static_array(f"c{call}_{gi}_{i}_rc", "int", rcs)
            rd_name = self.static_array(f"c{call}_{gi}_{i}_rd", "int", rd)
            setup.append(f"@Prb = t_new({rt.index}, {total});")
            if inplace:
                setup.append(f"put_block(@Prb, {rd[i] * rt.extent}, {rt.index}, {rcs[i]}, {key}, {i}, -1, 0);")
                send = ["MPI_IN_PLACE", "0", "MPI_INT"]
            else:
                self.send_block(setup, check, st, sc, key, i, -1, call)
                send = ["@Psb", str(sc), st.name()]
            self.image(check, rt, total,
                       [("put_block", f"{rd[s] * rt.extent}, {rt.index}, {rcs[s]}, {key}, {s}, -1, 0")
                        for s in range(g)], "@Prb", call, "receive buffer")
            out[r] = (setup, send + ["@Prb", rc_name, rd_name, rt.name(), comm.name()], check)
        return out

    def coll_alltoall(self, group, key, call, comm, gi):
        g = len(group)
        m = self.pick_m(mult=g)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            st, sc = self.pick_type(m, mult=g)
            rt, rc = self.pick_type(m, mult=g)
            setup, check = [], []
            setup.append(f"@Prb = t_new({rt.index}, {g * rc});")
            if inplace:
                setup += [f"put_block(@Prb, {d * rc * rt.extent}, {rt.index}, {rc}, {key}, {i}, {d}, 0);"
                          for d in range(g)]
                send = ["MPI_IN_PLACE", "0", "MPI_INT"]
            else:
                setup.append(f"@Psb = t_new({st.index}, {g * sc});")
                puts = [f"{d * sc * st.extent}, {st.index}, {sc}, {key}, {i}, {d}, 0" for d in range(g)]
                setup += [f"put_block(@Psb, {p});" for p in puts]
                self.image(check, st, g * sc, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
                send = ["@Psb", str(sc), st.name()]
            self.image(check, rt, g * rc,
                       [("put_block", f"{s * rc * rt.extent}, {rt.index}, {rc}, {key}, {s}, {i}, 0")
                        for s in range(g)], "@Prb", call, "receive buffer")
            out[r] = (setup, send + ["@Prb", str(rc), rt.name(), comm.name()], check)
        return out

    def pair_counts(self, sts, rts, symmetric):
        """m[s][d]: ints s sends to d, a multiple of both sides' type sizes."""
        g = len(sts)
        m = [[0] * g for _ in range(g)]
        for s in range(g):
            for d in range(g):
                if symmetric and d < s:
                    m[s][d] = m[d][s]
                    continue
                u = lcm(sts[s].n, rts[d].n)
                m[s][d] = u * min(self.rand_count(big=False), 300 // u + 1)
        return m

    def coll_alltoallv(self, group, key, call, comm, gi):
        g = len(group)
        inplace = self.inplace()
        rts = [self.pick_small_type(6) for _ in range(g)]
        sts = rts if inplace else [self.pick_small_type(6) for _ in range(g)]
        m = self.pair_counts(sts, rts, inplace)
        out = {}
        for i, r in enumerate(group):
            rt, st = rts[i], sts[i]
            rcs = [m[s][i] // rt.n for s in range(g)]
            rd, rtotal = self.layout(rt, rcs)
            if inplace:
                # the data for d leaves from where d's data arrives
                rcs = [m[i][d] // rt.n for d in range(g)]
                rd, rtotal = self.layout(rt, rcs)
            if rt.span(rtotal) > SPAN_CAP:
                return None
            setup, check = [], []
            rc_name = self.static_array(f"c{call}_{gi}_{i}_rc", "int", rcs)
            rd_name = self.static_array(f"c{call}_{gi}_{i}_rd", "int", rd)
            setup.append(f"@Prb = t_new({rt.index}, {rtotal});")
            if inplace:
                setup += [f"put_block(@Prb, {rd[d] * rt.extent}, {rt.index}, {rcs[d]}, {key}, {i}, {d}, 0);"
                          for d in range(g)]
                if self.rng.random() < 0.5:
                    send = ["MPI_IN_PLACE", "NULL", "NULL", "MPI_INT"]
                else:
                    send = ["MPI_IN_PLACE", rc_name, rd_name, rt.name()]
            else:
                scs = [m[i][d] // st.n for d in range(g)]
                sd, stotal = self.layout(st, scs)
                if st.span(stotal) > SPAN_CAP:
                    return None
                sc_name = self.static_array(f"c{call}_{gi}_{i}_sc", "int", scs)
                sd_name = self.static_array(f"c{call}_{gi}_{i}_sd", "int", sd)
                setup.append(f"@Psb = t_new({st.index}, {stotal});")
                puts = [f"{sd[d] * st.extent}, {st.index}, {scs[d]}, {key}, {i}, {d}, 0" for d in range(g)]
                setup += [f"put_block(@Psb, {p});" for p in puts]
                self.image(check, st, stotal, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
                send = ["@Psb", sc_name, sd_name, st.name()]
            self.image(check, rt, rtotal,
                       [("put_block", f"{rd[s] * rt.extent}, {rt.index}, {m[s][i] // rt.n}, {key}, {s}, {i}, 0")
                        for s in range(g)], "@Prb", call, "receive buffer")
            out[r] = (setup, send + ["@Prb", rc_name, rd_name, rt.name(), comm.name()], check)
        return out

    def w_types(self, name, ts):
        """A file-scope array of datatype handles, filled where the call starts."""
        self.statics.append(f"static MPI_Datatype {name}[{len(ts)}];")
        return [f"{name}[{j}] = {t.name()};" for j, t in enumerate(ts)]

    def coll_alltoallw(self, group, key, call, comm, gi, neighbors=None):
        """MPI_Alltoallw, or with `neighbors` (per member: comm ranks of its 2*ndims neighbours)
        MPI_Neighbor_alltoallw (MPI_Aint displacements)."""
        g = len(group)
        # MPICH 4.0.2's in-place MPI_Ialltoallw garbles blocks of datatypes whose true extent
        # differs from their extent: no MPI_IN_PLACE for it
        inplace = neighbors is None and not self.nonblocking and self.inplace()
        nb = neighbors or [list(range(g)) for _ in range(g)]
        k = len(nb[0])
        # block j of member i goes to nb[i][j]; it arrives there as block back(i, j)
        def back(i, j):
            return j ^ 1 if neighbors else i
        rts = [[self.pick_small_type(6) for _ in range(k)] for _ in range(g)]
        sts = rts if inplace else [[self.pick_small_type(6) for _ in range(k)] for _ in range(g)]
        m = [[0] * k for _ in range(g)]   # ints member i sends in its block j
        for i in range(g):
            for j in range(k):
                d = nb[i][j]
                if d < 0:
                    m[i][j] = sts[i][j].n * self.rng.randint(0, 3)
                    continue
                if inplace and d < i:
                    m[i][j] = m[d][i]
                    continue
                u = lcm(sts[i][j].n, rts[d][back(i, j)].n)
                if inplace:
                    u = lcm(u, lcm(rts[i][j].n, sts[d][i].n))
                m[i][j] = u * min(self.rand_count(big=False), 200 // u + 1)
        out = {}
        aint = "MPI_Aint" if neighbors else "int"
        for i, r in enumerate(group):
            setup, check = [], []
            # receive block j comes from nb[i][j], which sends it as its block back(i, j)
            src_m = []
            for j in range(k):
                s = nb[i][j]
                if s < 0:
                    src_m.append(rts[i][j].n * self.rng.randint(0, 3))
                else:
                    src_m.append(m[s][back(i, j)] if not inplace else m[i][j])
            rcs = [src_m[j] // rts[i][j].n for j in range(k)]
            rd, rtotal = self.byte_layout([rts[i][j].span(rcs[j]) for j in range(k)])
            if rtotal > SPAN_CAP:
                return None
            rc_name = self.static_array(f"c{call}_{gi}_{i}_rc", "int", rcs)
            rd_name = self.static_array(f"c{call}_{gi}_{i}_rd", aint, rd)
            setup += self.w_types(f"c{call}_{gi}_{i}_rt", rts[i])
            setup.append(f"@Prb = bytes_new({rtotal});")
            if inplace:
                setup += [f"put_block(@Prb, {rd[d]}, {rts[i][d].index}, {rcs[d]}, {key}, {i}, {d}, 0);"
                          for d in range(k)]
                if self.rng.random() < 0.5:
                    send = ["MPI_IN_PLACE", "NULL", "NULL", "NULL"]
                else:
                    send = ["MPI_IN_PLACE", rc_name, rd_name, f"c{call}_{gi}_{i}_rt"]
            else:
                scs = [m[i][j] // sts[i][j].n for j in range(k)]
                sd, stotal = self.byte_layout([sts[i][j].span(scs[j]) for j in range(k)])
                if stotal > SPAN_CAP:
                    return None
                sc_name = self.static_array(f"c{call}_{gi}_{i}_sc", "int", scs)
                sd_name = self.static_array(f"c{call}_{gi}_{i}_sd", aint, sd)
                setup += self.w_types(f"c{call}_{gi}_{i}_st", sts[i])
                setup.append(f"@Psb = bytes_new({stotal});")
                puts = [f"{sd[j]}, {sts[i][j].index}, {scs[j]}, {key}, {i}, {j}, 0" for j in range(k)]
                setup += [f"put_block(@Psb, {p});" for p in puts]
                self.byte_image(check, stotal, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
                send = ["@Psb", sc_name, sd_name, f"c{call}_{gi}_{i}_st"]
            puts = []
            for j in range(k):
                s = nb[i][j]
                if s >= 0:
                    puts.append(("put_block", f"{rd[j]}, {rts[i][j].index}, {rcs[j]}, {key}, {s}, {back(i, j) if neighbors else i}, 0"))
            self.byte_image(check, rtotal, puts, "@Prb", call, "receive buffer")
            out[r] = (setup, send + ["@Prb", rc_name, rd_name, f"c{call}_{gi}_{i}_rt", comm.name()], check)
        return out

    def reduce_choice(self, scatter=False):
        """(datatype, C operator kind, ops[] index) for a reduction. MPICH 4.0.2's reduce-scatter
        for operators declared non-commutative sizes its buffers by the datatype's true extent:
        with `scatter`, such operators get datatypes whose extent is their true extent."""
        prog = self.prog
        combos = []
        for oi, (mpi, kind, bases) in enumerate(PREDEFINED_OPS):
            for b in bases:
                combos.append((prog.types[b], kind, oi))
        user = [o for o in prog.ops if o["alive"] and not o["predefined"]]
        if user and not self.avoids("userop"):
            for _ in range(len(combos) // 2):
                o = self.rng.choice(user)
                types = self.int_types()
                if scatter and not o["commute"]:
                    types = [t for t in types if t.extent == t.end - min(t.offs)]
                combos.append((self.rng.choice(types), o["kind"], o["index"]))
        return self.rng.choice(combos)

    def reduce_count(self, t, mult=1):
        c = min(self.rand_count(), 1000)
        while c > 0 and t.span(c * mult) > SPAN_CAP:
            c //= 2
        return c

    def coll_reduce(self, group, key, call, comm, gi, all_=False):
        g = len(group)
        root = self.rng.randrange(g)
        t, kind, oi = self.reduce_choice()
        c = self.reduce_count(t)
        inplace = self.inplace()
        if not all_ and not self.nonblocking and root != 0 and t.span(c) > 2048:
            inplace = False  # MPICH 4.0.2's MPI_Reduce crashes there (it reads MPI_IN_PLACE)
        out = {}
        for i, r in enumerate(group):
            setup, check = [], []
            receives = all_ or i == root
            if inplace and receives:
                setup.append(f"@Prb = t_new({t.index}, {c});")
                setup.append(f"put_block(@Prb, 0, {t.index}, {c}, {key}, {i}, -1, 0);")
                send = "MPI_IN_PLACE"
            else:
                self.send_block(setup, check, t, c, key, i, -1, call)
                send = "@Psb"
                if receives:
                    setup.append(f"@Prb = t_new({t.index}, {c});")
            if receives:
                self.image(check, t, c, [("put_reduced", f"0, {t.index}, {c}, {key}, {kind}, 0, {g - 1}, 0")],
                           "@Prb", call, "result")
            args = [send, "@Prb" if receives else "NULL", str(c), t.name(), f"ops[{oi}]"]
            if not all_:
                args.append(str(root))
            out[r] = (setup, args + [comm.name()], check)
        return out

    def coll_allreduce(self, group, key, call, comm, gi):
        return self.coll_reduce(group, key, call, comm, gi, all_=True)

    def coll_reduce_scatter(self, group, key, call, comm, gi, block=False):
        g = len(group)
        t, kind, oi = self.reduce_choice(scatter=True)
        if block:
            rcs = [self.reduce_count(t, g)] * g
        else:
            rcs = [min(self.reduce_count(t, g), 300) for _ in range(g)]
        total = sum(rcs)
        if t.span(total) > SPAN_CAP:
            return None
        inplace = self.inplace()
        rc_name = None if block else self.static_array(f"c{call}_{gi}_rc", "int", rcs)
        out = {}
        for i, r in enumerate(group):
            setup, check = [], []
            first = sum(rcs[:i]) * t.n
            if inplace:
                setup.append(f"@Prb = t_new({t.index}, {total});")
                setup.append(f"put_block(@Prb, 0, {t.index}, {total}, {key}, {i}, -1, 0);")
                send = "MPI_IN_PLACE"
                self.image(check, t, total, [("put_reduced", f"0, {t.index}, {rcs[i]}, {key}, {kind}, 0, {g - 1}, {first}")],
                           "@Prb", call, "result", bytes_=t.span(rcs[i]))
            else:
                self.send_block(setup, check, t, total, key, i, -1, call)
                send = "@Psb"
                setup.append(f"@Prb = t_new({t.index}, {rcs[i]});")
                self.image(check, t, rcs[i], [("put_reduced", f"0, {t.index}, {rcs[i]}, {key}, {kind}, 0, {g - 1}, {first}")],
                           "@Prb", call, "result")
            counts = str(rcs[0]) if block else rc_name
            out[r] = (setup, [send, "@Prb", counts, t.name(), f"ops[{oi}]", comm.name()], check)
        return out

    def coll_reduce_scatter_block(self, group, key, call, comm, gi):
        return self.coll_reduce_scatter(group, key, call, comm, gi, block=True)

    def coll_scan(self, group, key, call, comm, gi, ex=False):
        t, kind, oi = self.reduce_choice()
        c = self.reduce_count(t)
        inplace = self.inplace()
        out = {}
        for i, r in enumerate(group):
            setup, check = [], []
            setup.append(f"@Prb = t_new({t.index}, {c});")
            if inplace:
                setup.append(f"put_block(@Prb, 0, {t.index}, {c}, {key}, {i}, -1, 0);")
                send = "MPI_IN_PLACE"
            else:
                self.send_block(setup, check, t, c, key, i, -1, call)
                send = "@Psb"
            hi = i - 1 if ex else i
            if hi >= 0:  # MPI_Exscan leaves rank 0's buffer undefined
                self.image(check, t, c, [("put_reduced", f"0, {t.index}, {c}, {key}, {kind}, 0, {hi}, 0")],
                           "@Prb", call, "result")
            out[r] = (setup, [send, "@Prb", str(c), t.name(), f"ops[{oi}]", comm.name()], check)
        return out

    def coll_exscan(self, group, key, call, comm, gi):
        return self.coll_scan(group, key, call, comm, gi, ex=True)

    # --- neighbourhood collectives (cartesian: neighbour j of i sends i its block j ^ 1) ------

    def neighbors_of(self, comm, group):
        dims, periods = comm.cart
        return [cart_neighbors(i, dims, periods) for i in range(len(group))]

    def coll_neighbor_allgather(self, group, key, call, comm, gi):
        nb = self.neighbors_of(comm, group)
        k = len(nb[0])
        m = self.pick_m(mult=k)
        out = {}
        for i, r in enumerate(group):
            st, sc = self.pick_type(m)
            rt, rc = self.pick_type(m, mult=k)
            setup, check = [], []
            self.send_block(setup, check, st, sc, key, i, -1, call)
            setup.append(f"@Prb = t_new({rt.index}, {k * rc});")
            self.image(check, rt, k * rc,
                       [("put_block", f"{j * rc * rt.extent}, {rt.index}, {rc}, {key}, {s}, -1, 0")
                        for j, s in enumerate(nb[i]) if s >= 0], "@Prb", call, "receive buffer")
            out[r] = (setup, ["@Psb", str(sc), st.name(), "@Prb", str(rc), rt.name(), comm.name()], check)
        return out

    def coll_neighbor_allgatherv(self, group, key, call, comm, gi):
        g = len(group)
        nb = self.neighbors_of(comm, group)
        k = len(nb[0])
        rts, u = self.unit_types(g)
        ms = [u * min(self.rand_count(), 400 // u + 1) for _ in range(g)]
        out = {}
        for i, r in enumerate(group):
            rt = rts[i]
            rcs = [ms[s] // rt.n if s >= 0 else self.rng.randint(0, 3) for s in nb[i]]
            rd, total = self.layout(rt, rcs)
            if rt.span(total) > SPAN_CAP:
                return None
            st, sc = self.pick_type(ms[i])
            setup, check = [], []
            self.send_block(setup, check, st, sc, key, i, -1, call)
            rc_name = self.static_array(f"c{call}_{gi}_{i}_rc", "int", rcs)
            rd_name = self.static_array(f"c{call}_{gi}_{i}_rd", "int", rd)
            setup.append(f"@Prb = t_new({rt.index}, {total});")
            self.image(check, rt, total,
                       [("put_block", f"{rd[j] * rt.extent}, {rt.index}, {rcs[j]}, {key}, {s}, -1, 0")
                        for j, s in enumerate(nb[i]) if s >= 0], "@Prb", call, "receive buffer")
            out[r] = (setup, ["@Psb", str(sc), st.name(), "@Prb", rc_name, rd_name, rt.name(), comm.name()], check)
        return out

    def coll_neighbor_alltoall(self, group, key, call, comm, gi):
        nb = self.neighbors_of(comm, group)
        k = len(nb[0])
        m = self.pick_m(mult=k)
        out = {}
        for i, r in enumerate(group):
            st, sc = self.pick_type(m, mult=k)
            rt, rc = self.pick_type(m, mult=k)
            setup, check = [], []
            setup.append(f"@Psb = t_new({st.index}, {k * sc});")
            puts = [f"{j * sc * st.extent}, {st.index}, {sc}, {key}, {i}, {j}, 0" for j in range(k)]
            setup += [f"put_block(@Psb, {p});" for p in puts]
            self.image(check, st, k * sc, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
            setup.append(f"@Prb = t_new({rt.index}, {k * rc});")
            self.image(check, rt, k * rc,
                       [("put_block", f"{j * rc * rt.extent}, {rt.index}, {rc}, {key}, {s}, {j ^ 1}, 0")
                        for j, s in enumerate(nb[i]) if s >= 0], "@Prb", call, "receive buffer")
            out[r] = (setup, ["@Psb", str(sc), st.name(), "@Prb", str(rc), rt.name(), comm.name()], check)
        return out

    def coll_neighbor_alltoallv(self, group, key, call, comm, gi):
        g = len(group)
        nb = self.neighbors_of(comm, group)
        k = len(nb[0])
        sts = [self.pick_small_type(6) for _ in range(g)]
        rts = [self.pick_small_type(6) for _ in range(g)]
        m = [[0] * k for _ in range(g)]
        for i in range(g):
            for j in range(k):
                d = nb[i][j]
                u = sts[i].n if d < 0 else lcm(sts[i].n, rts[d].n)
                m[i][j] = u * min(self.rand_count(big=False), 200 // u + 1)
        out = {}
        for i, r in enumerate(group):
            st, rt = sts[i], rts[i]
            scs = [m[i][j] // st.n for j in range(k)]
            rcs = [m[s][j ^ 1] // rt.n if s >= 0 else self.rng.randint(0, 3) for j, s in enumerate(nb[i])]
            sd, stotal = self.layout(st, scs)
            rd, rtotal = self.layout(rt, rcs)
            if st.span(stotal) > SPAN_CAP or rt.span(rtotal) > SPAN_CAP:
                return None
            setup, check = [], []
            names = [self.static_array(f"c{call}_{gi}_{i}_{x}", "int", v)
                     for x, v in (("sc", scs), ("sd", sd), ("rc", rcs), ("rd", rd))]
            setup.append(f"@Psb = t_new({st.index}, {stotal});")
            puts = [f"{sd[j] * st.extent}, {st.index}, {scs[j]}, {key}, {i}, {j}, 0" for j in range(k)]
            setup += [f"put_block(@Psb, {p});" for p in puts]
            self.image(check, st, stotal, [("put_block", p) for p in puts], "@Psb", call, "send buffer")
            setup.append(f"@Prb = t_new({rt.index}, {rtotal});")
            self.image(check, rt, rtotal,
                       [("put_block", f"{rd[j] * rt.extent}, {rt.index}, {rcs[j]}, {key}, {s}, {j ^ 1}, 0")
                        for j, s in enumerate(nb[i]) if s >= 0], "@Prb", call, "receive buffer")
            out[r] = (setup, ["@Psb", names[0], names[1], st.name(), "@Prb", names[2], names[3], rt.name(),
                              comm.name()], check)
        return out

    def coll_neighbor_alltoallw(self, group, key, call, comm, gi):
        return self.coll_alltoallw(group, key, call, comm, gi, neighbors=self.neighbors_of(comm, group))

    # --- point to point ---------------------------------------------------------------------

    def p2p_pair(self, comm=None):
        """Picks (comm, group, src, dst) with two distinct members."""
        comm = comm or self.comm_choice(min_size=2)
        if comm is None:
            return None
        groups = [g for g in comm.groups if len(g) >= 2]
        group = self.rng.choice(groups)
        s, d = self.rng.sample(range(len(group)), 2)
        return comm, group, s, d

    def message_types(self, m=None):
        """(send type, count, receive type, count) of one message of m ints."""
        if m is None:
            m = self.pick_m()
        st, sc = self.pick_type(m)
        rt, rc = self.pick_type(m)
        return m, st, sc, rt, rc

    def expect_msg(self, comm, group, s, d, tag, rt, rc):
        self.expect[group[d]].append((comm.index, s, tag, rt.index, rc))
        self.messages.append((comm.index, group[s], group[d], tag))

    def tag_arg(self, comm, group, s, d, tag):
        """The tag argument of a receive: MPI_ANY_TAG is decided when the step is complete."""
        if self.avoids("anytag") or self.rng.random() > 0.3:
            return str(tag)
        ph = f"@T{len(self.any_tag)}@"
        self.any_tag[ph] = (comm.index, group[s], group[d], tag)
        return ph

    def src_tag(self, comm, group, s, d, tag):
        """Source and tag arguments of a receive: at most one of them a wildcard."""
        if not self.avoids("anysource") and self.rng.random() < 0.25:
            return "MPI_ANY_SOURCE", str(tag)
        return str(s), self.tag_arg(comm, group, s, d, tag)

    def recv_how(self):
        options = ["RECV_RECV", "RECV_RECV", "RECV_IRECV_WAIT", "RECV_IRECV_TEST", "RECV_PROBE",
                   "RECV_MPROBE", "RECV_IPROBE", "RECV_IMPROBE"]
        if self.avoids("probe"):
            options = [o for o in options if "PROBE" not in o]
        if self.avoids("polling"):
            options = [o for o in options if o not in ("RECV_IRECV_TEST", "RECV_IPROBE", "RECV_IMPROBE")]
        return self.rng.choice(options)

    def send_mode(self):
        return self.rng.choice(["SEND_SEND", "SEND_SSEND", "SEND_ISEND", "SEND_ISSEND"])

    def element_message(self):
        """A blocking message: both ends at this position of the order."""
        picked = self.p2p_pair()
        if not picked:
            return False
        comm, group, s, d = picked
        tag = self.new_tag()
        m, st, sc, rt, rc = self.message_types()
        self.expect_msg(comm, group, s, d, tag, rt, rc)
        self.code[group[s]](f"send_msg({comm.index}, {d}, {tag}, {st.index}, {sc}, {self.send_mode()}, {s});")
        how = self.recv_how()
        extra = self.rng.choice([0, 0, 0, 2]) if "PROBE" not in how else 0
        self.code[group[d]](f"recv_msg({comm.index}, {', '.join(self.src_tag(comm, group, s, d, tag))}, "
                            f"{rt.index}, {rc + extra}, {how}, {self.poll_flag()});")
        self.names.append(f"msg@c{comm.index}")
        self.maybe_points([group[s], group[d]])
        return True

    def element_group(self):
        """Several members send to one with a shared tag; it receives with MPI_ANY_SOURCE."""
        if self.avoids("anysource"):
            return self.element_message()
        comm = self.comm_choice(min_size=3)
        if comm is None:
            return self.element_message()
        group = self.rng.choice([g for g in comm.groups if len(g) >= 3])
        d = self.rng.randrange(len(group))
        senders = self.rng.sample([i for i in range(len(group)) if i != d], self.rng.randint(2, len(group) - 1))
        tag = self.new_tag()
        m = self.pick_m()
        rt, rc = self.pick_type(m)
        for s in senders:
            st, sc = self.pick_type(m)
            self.expect_msg(comm, group, s, d, tag, rt, rc)
            self.code[group[s]](f"send_msg({comm.index}, {d}, {tag}, {st.index}, {sc}, {self.send_mode()}, {s});")
        how = self.recv_how()
        for _ in senders:
            self.code[group[d]](f"recv_msg({comm.index}, MPI_ANY_SOURCE, {tag}, {rt.index}, {rc}, {how}, "
                                f"{self.poll_flag()});")
        self.names.append(f"group@c{comm.index}")
        self.maybe_points([group[d]] + [group[s] for s in senders])
        return True

    def element_shift(self):
        """A cycle of members, each sending to the next and receiving from the previous one in one
        MPI_Sendrecv (or MPI_Sendrecv_replace)."""
        comm = self.comm_choice(min_size=2)
        if comm is None:
            return False
        group = self.rng.choice([g for g in comm.groups if len(g) >= 2])
        size = self.rng.randint(2, len(group))
        cycle = self.rng.sample(range(len(group)), size)
        replace = self.rng.random() < 0.4
        m = self.pick_m()
        tags = [self.new_tag() for _ in cycle]
        ts = [self.pick_type(m) for _ in cycle]   # each member's buffer type (send and receive)
        for k, i in enumerate(cycle):
            nxt, prv = cycle[(k + 1) % size], cycle[k - 1]
            st, sc = ts[k]
            rt, rc = ts[k] if replace else self.pick_type(m)
            self.expect_msg(comm, group, prv, i, tags[k - 1], rt, rc)
            src, tag = self.src_tag(comm, group, prv, i, tags[k - 1])
            c = self.code[group[i]]
            c.open("{")
            c("MPI_Status st;")
            c(f"void *sb = send_buffer({comm.index}, {st.index}, {sc}, {tags[k]}, {i});")
            if replace:
                c(f"MPI_Sendrecv_replace(sb, {sc}, {st.name()}, {nxt}, {tags[k]}, {src}, {tag}, {comm.name()}, &st);")
                c(f"p2p_done(sb, {st.index}, {sc}, {comm.index}, &st);")
            else:
                c(f"void *rb = t_new({rt.index}, {rc});")
                c(f"MPI_Sendrecv(sb, {sc}, {st.name()}, {nxt}, {tags[k]}, rb, {rc}, {rt.name()}, {src}, {tag}, "
                  f"{comm.name()}, &st);")
                c(f"p2p_done(rb, {rt.index}, {rc}, {comm.index}, &st);")
                c("free(rb);")
            c("free(sb);")
            c.close()
        self.names.append(f"shift@c{comm.index}")
        self.maybe_points([group[i] for i in cycle])
        return True

    def element_nb_messages(self):
        """Nonblocking messages: every rank first posts its receives, then sends (blocking sends
        only to receives posted here); the requests stay pending."""
        comm = self.comm_choice(min_size=2)
        if comm is None:
            return False
        group = self.rng.choice([g for g in comm.groups if len(g) >= 2])
        gs = len(group)
        plan = []   # (s, d, tag, st, sc, rt, cap, src arg, tag arg, send mode, persistent recv)
        for _ in range(self.rng.randint(1, 2 * gs)):
            s, d = self.rng.sample(range(gs), 2)
            tag = self.new_tag()
            m, st, sc, rt, rc = self.message_types()
            plan.append([s, d, tag, st, sc, rt, rc, None, None, None, False])
        if gs >= 3 and not self.avoids("anysource") and self.rng.random() < 0.4:
            d = self.rng.randrange(gs)
            senders = self.rng.sample([i for i in range(gs) if i != d], self.rng.randint(2, gs - 1))
            tag = self.new_tag()
            m = self.pick_m()
            rt, rc = self.pick_type(m)
            for s in senders:
                st, sc = self.pick_type(m)
                plan.append([s, d, tag, st, sc, rt, rc, "MPI_ANY_SOURCE", str(tag), None, False])
        for e in plan:
            s, d, tag, st, sc, rt, rc = e[:7]
            self.expect_msg(comm, group, s, d, tag, rt, rc)
            if e[7] is None:
                e[7], e[8] = self.src_tag(comm, group, s, d, tag)
            e[10] = not self.avoids("persistent") and self.rng.random() < 0.15
            modes = ["Isend", "Isend", "Issend", "Send", "Ssend"]
            if not self.avoids("persistent"):
                modes.append("persistent")
            e[9] = self.rng.choice(modes)
        for i in range(gs):
            r = group[i]
            c = self.code[r]
            for e in [e for e in plan if e[1] == i]:
                s, d, tag, st, sc, rt, rc, src, targ, mode, persistent = e
                k = self.new_slot(r)
                c(f"sl[{k}] = empty_slot;", f"sl[{k}].rb = t_new({rt.index}, {rc});")
                args = f"sl[{k}].rb, {rc}, {rt.name()}, {src}, {targ}, {comm.name()}, &req[{k}]"
                check = [f"p2p_done(sl[{k}].rb, {rt.index}, {rc}, {comm.index}, &sts[{k}]);", f"free(sl[{k}].rb);"]
                if persistent:
                    c(f"MPI_Recv_init({args});", f"MPI_Start(&req[{k}]);")
                    check.append(f"MPI_Request_free(&req[{k}]);")
                else:
                    c(f"MPI_Irecv({args});")
                self.pending[r].append(Pending(k, check, "receive"))
        for i in range(gs):
            r = group[i]
            c = self.code[r]
            for e in [e for e in plan if e[0] == i]:
                s, d, tag, st, sc, rt, rc, src, targ, mode, persistent = e
                if mode in ("Send", "Ssend"):
                    c(f"send_msg({comm.index}, {d}, {tag}, {st.index}, {sc}, SEND_{mode.upper()}, {s});")
                    continue
                k = self.new_slot(r)
                c(f"sl[{k}] = empty_slot;", f"sl[{k}].sb = send_buffer({comm.index}, {st.index}, {sc}, {tag}, {s});")
                args = f"sl[{k}].sb, {sc}, {st.name()}, {d}, {tag}, {comm.name()}, &req[{k}]"
                check = [f"free(sl[{k}].sb);"]
                if mode == "persistent":
                    c(f"MPI_Send_init({args});", f"MPI_Start(&req[{k}]);")
                    check.append(f"MPI_Request_free(&req[{k}]);")
                else:
                    c(f"MPI_{mode}({args});")
                self.pending[r].append(Pending(k, check, "send"))
        self.names.append(f"nb{len(plan)}@c{comm.index}")
        self.maybe_points(group, 0.4)
        return True

    # --- completion -------------------------------------------------------------------------

    def complete(self, r, subset=None):
        """Completes pending operations of rank r (all, or a random part); their partners all
        started in earlier elements."""
        pend = self.pending[r]
        if not pend:
            return
        if subset is None:
            chosen = list(pend)
        else:
            chosen = [p for p in pend if self.rng.random() < subset] or [pend[0]]
        self.rng.shuffle(chosen)
        options = COMPLETIONS if not self.avoids("polling") else COMPLETIONS[:4]
        how = self.rng.choice(options)
        c = self.code[r]
        c.open("{")
        ids = ", ".join(str(p.slot) for p in chosen)
        c(f"static const int ids[] = {{{ids}}};")
        c(f"complete_ids({len(chosen)}, ids, req, sts, DONE_{how.upper()}, {self.poll_flag()});")
        for p in sorted(chosen, key=lambda p: p.slot):
            c(*p.check)
        c.close()
        for p in chosen:
            pend.remove(p)

    # --- communicators ----------------------------------------------------------------------

    def comm_checks(self, comm, r):
        """C lines that check rank r's handle of a communicator variable."""
        w = comm.where(r)
        if w is None:
            return [f"check_null({comm.index});"]
        gi, crank = w
        lines = [f"check_comm({comm.index}, {len(comm.groups[gi])}, {crank}, {1 if comm.cart else 0});"]
        if comm.cart:
            dims, periods = comm.cart
            info = [len(dims)] + dims + [1 if p else 0 for p in periods] + cart_coords(crank, dims)
            name = f"cart_{self.index}_{comm.index}_{r}"
            self.statics.append(f"static const int {name}[] = {{{', '.join(map(str, info))}}};")
            lines.append(f"check_cart({comm.index}, {name});")
        return lines

    def new_comm(self, groups, how, cart=None):
        prog = self.prog
        live = [c for c in prog.comms if c.alive]
        if len(live) >= MAX_COMMS:
            return None
        groups = [g for g in groups if g]
        c = Comm(len(prog.comms), groups, how, cart)
        prog.comms.append(c)
        return c

    def element_comm_create(self, kind=None):
        prog, rng = self.prog, self.rng
        kinds = []
        if not self.avoids("split") and not self.avoids("subcomm"):
            kinds += ["split"] * 3
        if not self.avoids("dup") and not self.avoids("subcomm"):
            kinds += ["dup"] * 2
        if not self.avoids("create") and not self.avoids("subcomm"):
            kinds += ["create", "create_group"]
        if not self.avoids("cart") and not self.avoids("subcomm"):
            kinds += ["cart"]
            if any(c.alive and c.cart and len(c.cart[0]) >= 2 for c in prog.comms):
                kinds += ["cart_sub"] * 3
        if kind is None:
            if not kinds:
                return None
            kind = rng.choice(kinds)
        parents = [c for c in prog.comms if c.alive and c.index != 1]
        if kind == "cart_sub":
            parents = [c for c in parents if c.cart and len(c.cart[0]) >= 2]
            if not parents:
                kind = "cart"
                parents = [c for c in prog.comms if c.alive and c.index != 1]
        if kind in ("create", "create_group", "cart"):
            parents = [c for c in parents if len(c.groups) == 1]
        parent = rng.choice(parents)
        if kind == "split":
            new_groups, colors, keys = [], {}, {}
            for g in parent.groups:
                for r in g:
                    colors[r] = rng.choice([0, 1, 1, 2, "MPI_UNDEFINED"])
                    keys[r] = rng.randint(0, 3)
                for col in (0, 1, 2):
                    members = [r for r in g if colors[r] == col]
                    members.sort(key=lambda r: (keys[r], g.index(r)))  # ties: parent rank order
                    new_groups.append(members)
            c = self.new_comm(new_groups, f"split of {parent.index}")
            if c is None:
                return None
            for r in parent.members():
                self.code[r](f"MPI_Comm_split({parent.name()}, {colors[r]}, {keys[r]}, &{c.name()});")
            return self.after_create(c, parent.members())
        if kind == "dup":
            c = self.new_comm([list(g) for g in parent.groups], f"dup of {parent.index}", parent.cart)
            if c is None:
                return None
            for r in parent.members():
                self.code[r](f"MPI_Comm_dup({parent.name()}, &{c.name()});")
            return self.after_create(c, parent.members())
        if kind in ("create", "create_group"):
            g = parent.groups[0]
            size = rng.randint(1, len(g))
            chosen = rng.sample(range(len(g)), size)   # parent ranks in new-rank order
            how = rng.choice(["incl", "incl", "excl", "range"])
            if how == "excl":
                excluded = [i for i in range(len(g)) if i not in chosen]
                if not excluded:
                    how = "incl"
                else:
                    chosen = [i for i in range(len(g)) if i not in excluded]
            if how == "range":
                lo = rng.randrange(len(g))
                hi = rng.randrange(lo, len(g))
                chosen = list(range(lo, hi + 1))
            c = self.new_comm([[g[i] for i in chosen]], f"{kind.replace('_', ' ')} of {parent.index}")
            if c is None:
                return None
            name = f"grp_{self.index}_{c.index}"
            if how == "incl":
                self.static_array(name, "int", chosen)
                mk = f"MPI_Group_incl(pg, {len(chosen)}, {name}, &ng);"
            elif how == "excl":
                self.static_array(name, "int", excluded)
                mk = f"MPI_Group_excl(pg, {len(excluded)}, {name}, &ng);"
            else:
                self.statics.append(f"static int {name}[1][3] = {{{{{lo}, {hi}, 1}}}};")
                mk = f"MPI_Group_range_incl(pg, 1, {name}, &ng);"
            callers = g if kind == "create" else [g[i] for i in chosen]
            for r in g:
                code = self.code[r]
                if r not in callers:
                    code(f"{c.name()} = MPI_COMM_NULL;")
                    continue
                code.open("{")
                code("MPI_Group pg, ng;", f"MPI_Comm_group({parent.name()}, &pg);", mk)
                if kind == "create":
                    code(f"MPI_Comm_create({parent.name()}, ng, &{c.name()});")
                else:
                    code(f"MPI_Comm_create_group({parent.name()}, ng, {self.index * TAGS_PER_STEP + GROUP_TAG + self.next_group_tag}, &{c.name()});")
                code("MPI_Group_free(&ng);", "MPI_Group_free(&pg);")
                code.close()
            self.next_group_tag += 1
            return self.after_create(c, g, callers)
        if kind == "cart":
            g = parent.groups[0]
            size = rng.randint(max(1, len(g) - 1), len(g))
            shapes = [[size]]
            for a in range(2, size + 1):
                if size % a == 0:
                    shapes.append([a, size // a])
            if size == 4:
                shapes.append([2, 2, 1])
            dims = rng.choice(shapes[1:] if len(shapes) > 1 and rng.random() < 0.6 else shapes)
            periods = [d >= 3 and rng.random() < 0.6 for d in dims]
            c = self.new_comm([g[:size]], f"cart {'x'.join(map(str, dims))} of {parent.index}", (dims, periods))
            if c is None:
                return None
            dn = self.static_array(f"dims_{self.index}_{c.index}", "int", dims)
            pn = self.static_array(f"periods_{self.index}_{c.index}", "int", [1 if p else 0 for p in periods])
            for r in g:
                self.code[r](f"MPI_Cart_create({parent.name()}, {len(dims)}, {dn}, {pn}, 0, &{c.name()});")
            return self.after_create(c, g)
        # cart_sub
        dims, periods = parent.cart
        remain = [rng.random() < 0.5 for _ in dims]
        if all(remain) or not any(remain):
            remain[rng.randrange(len(dims))] = not remain[0] if len(dims) > 1 else True
        new_groups = []
        for g in parent.groups:
            buckets = {}
            for i, r in enumerate(g):
                co = cart_coords(i, dims)
                fixed = tuple(x for x, keep in zip(co, remain) if not keep)
                buckets.setdefault(fixed, []).append(r)   # row-major order of the kept ones
            new_groups += [buckets[k] for k in sorted(buckets)]
        sub_dims = [d for d, keep in zip(dims, remain) if keep]
        sub_periods = [p for p, keep in zip(periods, remain) if keep]
        c = self.new_comm(new_groups, f"cart_sub of {parent.index}", (sub_dims, sub_periods))
        if c is None:
            return None
        rn = self.static_array(f"remain_{self.index}_{c.index}", "int", [1 if x else 0 for x in remain])
        for r in parent.members():
            self.code[r](f"MPI_Cart_sub({parent.name()}, {rn}, &{c.name()});")
        return self.after_create(c, parent.members())

    def after_create(self, c, ranks, callers=None):
        for r in ranks:
            self.code[r](*self.comm_checks(c, r))
        self.names.append(f"{c.how.split(' ')[0]}->c{c.index}")
        self.maybe_points(ranks, 0.4)
        return c

    def element_comm_free(self):
        if self.avoids("commfree"):
            return False
        cands = [c for c in self.prog.comms if c.alive and c.index > 1]
        if not cands:
            return False
        c = self.rng.choice(cands)
        for r in c.members():
            self.code[r](f"MPI_Comm_free(&{c.name()});")
            self.code[r](f"check_null({c.index});")
        c.alive = False
        self.names.append(f"free c{c.index}")
        return True

    # --- datatypes and operators (local: every rank does the same) ----------------------------

    def element_types(self):
        prog, rng = self.prog, self.rng
        lines = []
        if not self.avoids("derived"):
            for _ in range(rng.randint(1, 3)):
                lines += prog.new_type(self)
            free = [t for t in prog.types[6:] if t.alive]
            # most often a datatype that a live one was built from
            parents = [t for t in free if any(t.index in u.parents for u in free)]
            if free and not self.avoids("typefree") and rng.random() < 0.35:
                t = rng.choice(parents if parents and rng.random() < 0.7 else free)
                lines.append(f"MPI_Type_free(&{t.name()});")
                t.alive = False
                self.names.append(f"free t{t.index}")
        if not self.avoids("userop") and rng.random() < 0.5:
            lines += prog.new_op(self)
        for r in range(self.n):
            self.code[r](*lines)

    # --- the kinds --------------------------------------------------------------------------

    def element_blocking(self, p2p_weight=25):
        choice = self.rng.choices(["coll", "msg", "group", "shift", "state"],
                                  [100 - p2p_weight, 0 if self.avoids("p2p") else p2p_weight * 0.5,
                                   0 if self.avoids("p2p") else p2p_weight * 0.2,
                                   0 if self.avoids("p2p") else p2p_weight * 0.3,
                                   0 if self.avoids("state") else 6])[0]
        if choice == "coll":
            comm = self.comm_choice()
            if self.collective(comm):
                self.maybe_points(comm.members(), 0.5)
        elif choice == "state":
            comm = self.comm_choice()
            if self.collective(comm, name="State"):
                self.maybe_points(comm.members(), 0.5)
        else:
            getattr(self, "element_" + {"msg": "message"}.get(choice, choice))()

    def element_start(self, neighbor=False):
        """Starts a nonblocking collective; some members take a point at once."""
        comm = self.comm_choice(need_cart=neighbor)
        if comm is None:
            return
        if self.rng.random() < 0.08 and not self.avoids("state"):
            ok = self.collective(comm, nonblocking=True, name="State")
        else:
            ok = self.collective(comm, nonblocking=True, neighbor=neighbor)
        if ok:
            for r in comm.members():
                if self.rng.random() < 0.6:
                    self.point(r, inside=True)

    def build_coll(self):
        for _ in range(self.rng.randint(2, 5)):
            self.element_blocking()

    def build_icoll(self):
        rng = self.rng
        for _ in range(rng.randint(2, 6)):
            x = rng.random()
            if x < 0.45 or self.avoids("p2p"):
                self.element_start()
            elif x < 0.6:
                self.element_nb_messages()
            elif x < 0.85:
                self.element_blocking()
            else:
                for r in range(self.n):
                    if self.pending[r] and rng.random() < 0.5:
                        self.complete(r, subset=0.5)
                        if rng.random() < 0.3:
                            self.point(r, inside=bool(self.pending[r]))

    def build_comm(self):
        rng = self.rng
        made = []
        for _ in range(rng.randint(1, 2)):
            if rng.random() < 0.25 and self.element_comm_free():
                continue
            c = self.element_comm_create()
            if c is not None:
                made.append(c)
        for c in made:
            if not c.alive or not c.groups:
                continue
            for _ in range(rng.randint(1, 2)):
                if rng.random() < 0.3 and not self.avoids("nonblocking"):
                    self.collective(c, nonblocking=True)
                else:
                    self.collective(c)
            if rng.random() < 0.4 and not self.avoids("p2p") and max(len(g) for g in c.groups) >= 2:
                picked = self.p2p_pair(c)
                if picked:
                    self.element_message_on(*picked)
        if not made:
            self.element_blocking()

    def element_message_on(self, comm, group, s, d):
        tag = self.new_tag()
        m, st, sc, rt, rc = self.message_types()
        self.expect_msg(comm, group, s, d, tag, rt, rc)
        self.code[group[s]](f"send_msg({comm.index}, {d}, {tag}, {st.index}, {sc}, {self.send_mode()}, {s});")
        self.code[group[d]](f"recv_msg({comm.index}, {', '.join(self.src_tag(comm, group, s, d, tag))}, "
                            f"{rt.index}, {rc}, {self.recv_how()}, {self.poll_flag()});")
        self.names.append(f"msg@c{comm.index}")

    def build_neighbor(self):
        rng = self.rng
        if not any(c.alive and c.cart for c in self.prog.comms):
            c = self.element_comm_create("cart")
            if c is None:
                self.build_coll()
                return
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.45 and not self.avoids("nonblocking"):
                self.element_start(neighbor=True)
            else:
                comm = self.comm_choice(need_cart=True)
                if self.collective(comm, neighbor=True):
                    self.maybe_points(comm.members())
            if rng.random() < 0.3:
                self.element_blocking()

    def build_p2p(self):
        rng = self.rng
        for _ in range(rng.randint(2, 5)):
            x = rng.random()
            if x < 0.3:
                self.element_message()
            elif x < 0.45:
                self.element_group()
            elif x < 0.6:
                self.element_shift()
            elif x < 0.9:
                self.element_nb_messages()
            else:
                for r in range(self.n):
                    if self.pending[r]:
                        self.complete(r, subset=0.5)

    def build(self):
        prog = self.prog
        for r in range(self.n):
            for c in prog.comms:
                if c.alive and c.index > 1:
                    self.handle_checks[r] += self.comm_checks(c, r)
            for t in prog.types[6:]:
                if t.alive:
                    self.handle_checks[r].append(f"check_type({t.index});")
            for o in prog.ops:
                if o["alive"] and not o["predefined"]:
                    self.handle_checks[r].append(f"check_op({o['index']}, {1 if o['commute'] else 0});")
        if self.index == 0 or self.rng.random() < 0.25:
            self.element_types()
        getattr(self, "build_" + self.kind)()
        for r in range(self.n):
            if self.pending[r]:
                if self.rng.random() < 0.3:
                    self.complete(r, subset=0.5)
                    if self.pending[r] and self.rng.random() < 0.5:
                        self.point(r, inside=True)
                self.complete(r)
        self.resolve_any_tag()
        self.summary = f"{self.kind} ({' '.join(self.names)})"

    def resolve_any_tag(self):
        count = {}
        for comm, s, d, tag in self.messages:
            count[(comm, s, d)] = count.get((comm, s, d), 0) + 1
        subst = {}
        for ph, (comm, s, d, tag) in self.any_tag.items():
            subst[ph] = "MPI_ANY_TAG" if count[(comm, s, d)] == 1 else str(tag)
        for r in range(self.n):
            lines = self.code[r].lines
            for i, line in enumerate(lines):
                if "@T" in line:
                    for ph, v in subst.items():
                        line = line.replace(ph, v)
                    lines[i] = line

    def emit(self, out):
        out.append(f"/* step {self.index}: {self.summary} */")
        out.extend(self.statics)
        for r in range(self.n):
            exp = self.expect[r]
            if exp:
                out.append(f"static const struct expect expect_{self.index}_{r}[] = {{")
                for e in exp:
                    out.append("  {" + ", ".join(map(str, e)) + "},")
                out.append("};")
        out.append(f"static void step_{self.index}(void) {{")
        out.append("  switch (rank) {")
        for r in range(self.n):
            table = f"expect_{self.index}_{r}" if self.expect[r] else "NULL"
            out.append(f"  case {r}: {{")
            if self.slots[r]:
                k = self.slots[r]
                out.append(f"    MPI_Request req[{k}];")
                out.append(f"    MPI_Status sts[{k}];")
                out.append(f"    struct slot sl[{k}];")
            out.append(f"    begin_step({self.index}, {table}, {len(self.expect[r])});")
            for line in self.handle_checks[r]:
                out.append("    " + line)
            out.append("    pause_maybe();")
            out.extend(self.code[r].lines)
            out.append("    end_step();")
            out.append("    break;")
            out.append("  }")
        out.append("  }")
        out.append("}")
        out.append("")


class Program:
    def __init__(self, seed, ranks, steps=None, kinds=None, avoid=(), mode=None):
        self.seed, self.ranks = seed, ranks
        self.rng = random.Random(seed * 1000003 + ranks + 77)
        self.avoid = set(avoid)
        self.kinds = list(kinds or KINDS)
        if self.avoid & {"neighbor", "cart", "subcomm"}:
            self.kinds = [k for k in self.kinds if k != "neighbor"]
        if self.avoid & {"subcomm"}:
            self.kinds = [k for k in self.kinds if k != "comm"]
        if "p2p" in self.avoid:
            self.kinds = [k for k in self.kinds if k != "p2p"]
        if not self.kinds:
            raise SystemExit("gen_coll.py: --avoid leaves no step kind")
        mode_pick = "interval" if self.rng.random() < 0.4 else "forced"
        self.mode = mode or mode_pick
        self.steps_count = self.rng.randint(8, 18)
        if steps:  # the seed's program cut or extended: its first steps stay the same
            self.steps_count = steps
        self.flush = self.rng.random() < 0.5
        self.types = [DType(i, i, [0], 0, BASE_SIZE[i], name, predefined=name)
                      for i, name in enumerate(PREDEFINED_TYPES)]
        self.type_ctor_lines = 0
        self.ops = [{"index": i, "kind": kind, "predefined": True, "alive": True, "commute": True}
                    for i, (mpi, kind, bases) in enumerate(PREDEFINED_OPS)]
        self.comms = [Comm(0, [list(range(ranks))], "MPI_COMM_WORLD"),
                      Comm(1, [[r] for r in range(ranks)], "MPI_COMM_SELF")]
        self.calls = 0
        self.steps = []
        weights = [KIND_WEIGHTS[k] for k in self.kinds]
        for i in range(self.steps_count):
            kind = self.rng.choices(self.kinds, weights)[0]
            step = Step(self, i, kind)
            step.build()
            self.steps.append(step)
        self.plan = self.checkpoint_plan()

    def new_call(self):
        self.calls += 1
        return self.calls

    # --- datatypes --------------------------------------------------------------------------

    def new_type(self, step):
        """C lines creating one derived int datatype from live ones (all ranks alike)."""
        rng = self.rng
        live = [t for t in self.types if t.alive and t.base == B_INT]
        if sum(1 for t in self.types[6:] if t.alive) >= MAX_DERIVED:
            return []
        for _ in range(50):
            self.type_statics = []
            old = rng.choice(live)
            how = rng.choice(["contiguous", "vector", "hvector", "indexed", "indexed_block",
                              "hindexed", "struct", "subarray", "resized", "resized", "dup"])
            made = self.try_type(old, how, live, step)
            if made is None:
                continue
            t, lines = made
            if not t.parents:
                t.parents = [old.index]
            if not t.tiles() or t.n > 64 or t.n == 0 or t.extent > 4096:
                continue
            self.types.append(t)
            step.statics += self.type_statics
            if rng.random() < 0.85:
                t.committed = True
                lines.append(f"MPI_Type_commit(&{t.name()});")
            step.names.append(f"t{t.index}={how}")
            return lines
        return []

    def try_type(self, old, how, live, step):
        rng = self.rng
        idx = len(self.types)
        E, L = old.extent, old.lb
        new = f"&types[{idx}]"
        sname = f"ty{idx}"

        def arr(name, ctype, values):
            self.type_statics.append(f"static const {ctype} {sname}_{name}[] = {{{', '.join(map(str, values))}}};")
            return f"{sname}_{name}"

        if how == "contiguous":
            c = rng.randint(1, 4)
            offs = [i * E + o for i in range(c) for o in old.offs]
            t = DType(idx, B_INT, offs, L, c * E, f"contiguous({c}, t{old.index})")
            return t, [f"MPI_Type_contiguous({c}, {old.name()}, {new});"]
        if how in ("vector", "hvector"):
            count, bl = rng.randint(1, 4), rng.randint(1, 3)
            stride = rng.randint(bl, bl + 3)
            if how == "hvector":
                sb = stride * E + 4 * rng.randint(0, 2)
                offs = [i * sb + j * E + o for i in range(count) for j in range(bl) for o in old.offs]
                ub = (count - 1) * sb + bl * E + L
                t = DType(idx, B_INT, offs, L, ub - L, f"hvector({count}, {bl}, {sb}B, t{old.index})")
                return t, [f"MPI_Type_create_hvector({count}, {bl}, {sb}, {old.name()}, {new});"]
            offs = [(i * stride + j) * E + o for i in range(count) for j in range(bl) for o in old.offs]
            t = DType(idx, B_INT, offs, L, ((count - 1) * stride + bl) * E, f"vector({count}, {bl}, {stride}, t{old.index})")
            return t, [f"MPI_Type_vector({count}, {bl}, {stride}, {old.name()}, {new});"]
        if how in ("indexed", "indexed_block", "hindexed"):
            k = rng.randint(1, 4)
            bls = [rng.randint(1, 3) for _ in range(k)]
            if how == "indexed_block":
                bls = [bls[0]] * k
            # blocks at increasing places, listed in a random order (the type map keeps it)
            starts, pos = [], rng.randint(0, 2)
            for b in bls:
                starts.append(pos)
                pos += b + rng.randint(0, 2)
            order = list(range(k))
            rng.shuffle(order)
            bls = [bls[i] for i in order]
            starts = [starts[i] for i in order]
            if how == "hindexed":
                disp = [s * E for s in starts]
            else:
                disp = [s * E for s in starts]
            offs = [disp[i] + j * E + o for i in range(k) for j in range(bls[i]) for o in old.offs]
            lb = min(disp) + L
            ub = max(disp[i] + bls[i] * E for i in range(k)) + L
            t = DType(idx, B_INT, offs, lb, ub - lb, f"{how}(t{old.index})")
            if how == "indexed":
                return t, [f"MPI_Type_indexed({k}, {arr('bl', 'int', bls)}, {arr('dp', 'int', starts)}, {old.name()}, {new});"]
            if how == "indexed_block":
                return t, [f"MPI_Type_create_indexed_block({k}, {bls[0]}, {arr('dp', 'int', starts)}, {old.name()}, {new});"]
            return t, [f"MPI_Type_create_hindexed({k}, {arr('bl', 'int', bls)}, {arr('dp', 'MPI_Aint', disp)}, {old.name()}, {new});"]
        if how == "struct":
            k = rng.randint(1, 3)
            fields = [rng.choice(live) for _ in range(k)]
            bls = [rng.randint(1, 2) for _ in range(k)]
            disp, pos = [], 4 * rng.randint(0, 1)
            for f, b in zip(fields, bls):
                disp.append(pos)
                pos += b * f.extent + f.lb + max(0, f.end - f.extent - f.lb) + 4 * rng.randint(0, 1)
                pos = (pos + 3) // 4 * 4
            order = list(range(k))
            rng.shuffle(order)
            fields = [fields[i] for i in order]
            bls = [bls[i] for i in order]
            disp = [disp[i] for i in order]
            offs = [disp[i] + j * f.extent + o for i, f in enumerate(fields) for j in range(bls[i]) for o in f.offs]
            lb = min(disp[i] + f.lb for i, f in enumerate(fields))
            ub = max(disp[i] + bls[i] * f.extent + f.lb for i, f in enumerate(fields))
            t = DType(idx, B_INT, offs, lb, ub - lb, "struct(" + ", ".join(f"t{f.index}" for f in fields) + ")")
            t.parents = [f.index for f in fields]
            tl = f"{{{', '.join(f.name() for f in fields)}}}"
            return t, ["{",
                       f"  MPI_Datatype fields[{k}] = {tl};",
                       f"  MPI_Type_create_struct({k}, {arr('bl', 'int', bls)}, {arr('dp', 'MPI_Aint', disp)}, fields, {new});",
                       "}"]
        if how == "subarray":
            if old.lb != 0 or old.end > old.extent:
                return None
            nd = rng.randint(1, 2)
            sizes = [rng.randint(2, 4) for _ in range(nd)]
            subs = [rng.randint(1, s) for s in sizes]
            starts = [rng.randint(0, s - u) for s, u in zip(sizes, subs)]
            offs = []
            if nd == 1:
                cells = [(i,) for i in range(starts[0], starts[0] + subs[0])]
            else:
                cells = [(i, j) for i in range(starts[0], starts[0] + subs[0])
                         for j in range(starts[1], starts[1] + subs[1])]
            for cell in cells:
                lin = cell[0] if nd == 1 else cell[0] * sizes[1] + cell[1]
                offs += [lin * E + o for o in old.offs]
            total = 1
            for s in sizes:
                total *= s
            t = DType(idx, B_INT, offs, 0, total * E, f"subarray({'x'.join(map(str, sizes))}, t{old.index})")
            return t, [f"MPI_Type_create_subarray({nd}, {arr('sz', 'int', sizes)}, {arr('sub', 'int', subs)}, "
                       f"{arr('st', 'int', starts)}, MPI_ORDER_C, {old.name()}, {new});"]
        if how == "resized":
            lo = min(old.offs)
            lb = 4 * rng.randint(0, lo // 4) if rng.random() < 0.5 else 0
            ext = rng.choice([old.extent + 4 * rng.randint(1, 4), old.end - lb + 4 * rng.randint(0, 3),
                              4 * rng.randint(1, max(1, old.end // 4))])
            t = DType(idx, B_INT, list(old.offs), lb, ext, f"resized(t{old.index}, {lb}, {ext})")
            return t, [f"MPI_Type_create_resized({old.name()}, {lb}, {ext}, {new});"]
        t = DType(idx, B_INT, list(old.offs), old.lb, old.extent, f"dup(t{old.index})")
        return t, [f"MPI_Type_dup({old.name()}, {new});"]

    def new_op(self, step):
        live = [o for o in self.ops if o["alive"] and not o["predefined"]]
        lines = []
        if live and self.rng.random() < 0.3:
            o = self.rng.choice(live)
            o["alive"] = False
            lines.append(f"MPI_Op_free(&ops[{o['index']}]);")
            step.names.append(f"free op{o['index']}")
        if len(self.ops) >= MAX_OPS:
            return lines
        fn, kind, commutes = self.rng.choice(USER_OPS)
        commute = commutes and self.rng.random() < 0.7   # a commutative one may be declared not to be
        o = {"index": len(self.ops), "kind": kind, "predefined": False, "alive": True, "commute": commute}
        self.ops.append(o)
        lines.append(f"MPI_Op_create({fn}, {1 if commute else 0}, &ops[{o['index']}]);")
        step.names.append(f"op{o['index']}={fn[4:]}{'' if commute else '/nc'}")
        return lines

    # --- checkpoints ------------------------------------------------------------------------

    def checkpoint_plan(self):
        """forced: one or two (step, point) per rank, different steps for different ranks where
        possible, often a point inside a pending collective."""
        rng = self.rng
        plan = {r: [] for r in range(self.ranks)}
        if self.mode != "forced":
            return plan
        last = self.steps_count - 1
        used = set()
        for r in range(self.ranks):
            for k in range(1 if rng.random() < 0.5 else 2):
                lo = 0 if k == 0 else plan[r][0][0] + 1
                if lo > last:
                    break
                hi = max(lo, last - 1 if last > 1 else last)
                for _ in range(20):
                    step = rng.randint(lo, hi)
                    if step not in used:
                        break
                pts = self.steps[step].points[r]
                inside = [p for p, site, ins in pts if ins]
                if inside and rng.random() < 0.6:
                    point = rng.choice(inside)
                elif pts and rng.random() < 0.5:
                    point = rng.choice(pts)[0]
                else:
                    point = 0
                plan[r].append((step, point))
                used.add(step)
        return plan

    def sites(self):
        """Pragma visits every run of the rank with the fewest makes (polling loops aside)."""
        best = None
        for r in range(self.ranks):
            n = self.steps_count * (2 if self.mode == "interval" else 1)
            for s in self.steps:
                for p, site, inside in s.points[r]:
                    if self.mode == "interval" or site or (s.index, p) in self.plan[r]:
                        n += 1
            n += sum(1 for step, p in self.plan[r] if p == 0)
            best = n if best is None else min(best, n)
        return best

    def meta(self):
        return {"seed": self.seed, "ranks": self.ranks, "steps": self.steps_count, "mode": self.mode,
                "sites": self.sites(), "calls": self.calls,
                "forced": {str(r): [list(p) for p in self.plan[r]] for r in range(self.ranks)},
                "kinds": [s.kind for s in self.steps]}

    def emit(self, options):
        out = []
        w = out.append
        w(f"/* Generated by test/mpi_random/gen_coll.py --seed {self.seed} --ranks {self.ranks}{options}: a")
        w("   deadlock-free MPI program of collectives and messages on several communicators, whose output")
        w(f"   does not depend on the order in which messages match. Checkpoints: {self.mode}. Steps:")
        for s in self.steps:
            w(f"     {s.index:3d} {s.summary}")
        w("   Datatypes:")
        for t in self.types[6:]:
            w(f"     t{t.index} = {t.how}: {t.n} ints, lb {t.lb}, extent {t.extent}")
        if self.mode == "forced":
            w("   Forced checkpoints (rank: step/point, point 0 = end of step):")
            for r in range(self.ranks):
                w(f"     rank {r}: " + (" ".join(f"{a}/{b}" for a, b in self.plan[r]) or "-"))
        w(f"   @meta {json.dumps(self.meta())} */")
        max_slots = max([s.slots[r] for s in self.steps for r in range(self.ranks)] + [1])
        w(PRELUDE.replace("@RANKS@", str(self.ranks)).replace("@STEPS@", str(self.steps_count))
          .replace("@SEED@", f"0x{(self.seed * 0x9E3779B97F4A7C15 + self.ranks) % (1 << 64):016x}ULL")
          .replace("@MAXEXPECT@", str(max([len(s.expect[r]) for s in self.steps for r in range(self.ranks)] + [1])))
          .replace("@MAXSLOTS@", str(max_slots))
          .replace("@NTYPES@", str(len(self.types))).replace("@NCOMMS@", str(len(self.comms)))
          .replace("@NOPS@", str(len(self.ops))).replace("@FLUSH@", "1" if self.flush else "0"))
        for t in self.types:
            w(f"static const long offs_{t.index}[] = {{{', '.join(map(str, t.offs))}}};")
        w("static const struct tdesc tdescs[NTYPES] = {")
        for t in self.types:
            w(f"  {{{BASE_NAMES[t.base]}, {t.n}, {t.lb}, {t.extent}, offs_{t.index}}},  /* {t.how} */")
        w("};")
        w(C_HELPERS)
        w(HELPERS)
        if self.mode == "forced":
            w("static const struct forced_checkpoint forced[NRANKS][2] = {")
            for r in range(self.ranks):
                entries = [f"{{{a}, {b}}}" for a, b in self.plan[r]] + ["{-1, -1}"] * (2 - len(self.plan[r]))
                w("  {" + ", ".join(entries) + "},")
            w("};")
        w(CHECKPOINT_FORCED if self.mode == "forced" else CHECKPOINT_INTERVAL)
        for s in self.steps:
            s.emit(out)
        w("static void run_step(int step) {")
        w("  switch (step) {")
        for s in self.steps:
            w(f"  case {s.index}: step_{s.index}(); break;")
        w("  }")
        w("}")
        w("")
        w("/* At the end every rank frees what it still holds. */")
        w("static void cleanup(void) {")
        w("  switch (rank) {")
        for r in range(self.ranks):
            w(f"  case {r}:")
            for c in self.comms[2:]:
                if c.alive and c.where(r) is not None and "commfree" not in self.avoid:
                    w(f"    MPI_Comm_free(&{c.name()});")
            w("    break;")
        w("  }")
        for t in self.types[6:]:
            if t.alive and "typefree" not in self.avoid:
                w(f"  MPI_Type_free(&{t.name()});")
        for o in self.ops:
            if o["alive"] and not o["predefined"]:
                w(f"  MPI_Op_free(&ops[{o['index']}]);")
        w("}")
        w("")
        w("static const char *const step_kind[NSTEPS] = {" + ", ".join(f'"{s.kind}"' for s in self.steps) + "};")
        w(MAIN)
        return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--ranks", type=int, required=True, choices=[2, 3, 4])
    parser.add_argument("--steps", type=int, help=f"number of steps (default: 8..18, at most {MAX_STEPS}); "
                        "the first steps of a seed's program do not depend on it")
    parser.add_argument("--kinds", help="comma-separated subset of: " + ", ".join(KINDS))
    parser.add_argument("--avoid", help="comma-separated features to leave out: " +
                        "; ".join(f"{k} ({v})" for k, v in FEATURES.items() if not k.startswith("i") or k == "inplace"))
    parser.add_argument("--mode", choices=["forced", "interval"],
                        help="checkpoints: forced pragmas, or unforced ones and C3_INTERVAL (default: from the seed)")
    parser.add_argument("-o", "--output", help="C file to write (default: stdout)")
    parser.add_argument("--describe", action="store_true",
                        help="print the program's metadata (JSON) instead of the program")
    args = parser.parse_args(argv)
    kinds = None
    if args.kinds:
        kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
        unknown = [k for k in kinds if k not in KINDS]
        if unknown or not kinds:
            parser.error(f"unknown kind(s) {', '.join(unknown)}; choose from {', '.join(KINDS)}")
    avoid = [a.strip() for a in (args.avoid or "").split(",") if a.strip()]
    unknown = [a for a in avoid if a not in FEATURES]
    if unknown:
        parser.error(f"unknown feature(s) {', '.join(unknown)}; see --help")
    if args.steps is not None and not 1 <= args.steps <= MAX_STEPS:
        parser.error(f"--steps must be 1..{MAX_STEPS}")
    program = Program(args.seed, args.ranks, args.steps, kinds, avoid, args.mode)
    options = ""
    if args.steps:
        options += f" --steps {args.steps}"
    if kinds:
        options += " --kinds " + ",".join(kinds)
    if avoid:
        options += " --avoid " + ",".join(sorted(set(avoid)))
    if args.mode:
        options += f" --mode {args.mode}"
    text = json.dumps(program.meta()) + "\n" if args.describe else program.emit(options)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


# --- C text of the programs (@NAME@: filled in by Program.emit) ----------------------------

PRELUDE = r"""
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NRANKS @RANKS@
#define NSTEPS @STEPS@
#define PROGRAM_SEED @SEED@
#define MAX_EXPECT @MAXEXPECT@
#define MAX_SLOTS @MAXSLOTS@
#define NTYPES @NTYPES@
#define NCOMMS @NCOMMS@
#define NOPS @NOPS@
#define FLUSH_EVERY_LINE @FLUSH@
#define FINAL_TAG 32766
#define SENTINEL 0xa5
#define KEY(id) mix64(PROGRAM_SEED ^ ((uint64_t)(id) * 0x9e3779b97f4a7c15ULL))
#define HELPER static __attribute__((unused))  /* not every program uses every helper */

/* Base element kinds: every datatype is made of one of them. */
enum { B_INT, B_UNSIGNED, B_LONG, B_DOUBLE, B_2INT, B_U64 };
/* Reduction operators as the program computes them itself (OP_MAT, OP_BADD, OP_UMAX: user-defined). */
enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_BAND, OP_BOR, OP_BXOR, OP_MAXLOC, OP_MINLOC, OP_MAT, OP_BADD, OP_UMAX };
enum { SEND_SEND, SEND_SSEND, SEND_ISEND, SEND_ISSEND };
enum { RECV_RECV, RECV_IRECV_WAIT, RECV_IRECV_TEST, RECV_PROBE, RECV_MPROBE, RECV_IPROBE, RECV_IMPROBE };
enum { DONE_WAIT, DONE_WAITALL, DONE_WAITANY, DONE_WAITSOME, DONE_TESTALL, DONE_TESTANY, DONE_TESTSOME, DONE_TEST };

/* A datatype as the program knows it: n base elements per element at byte offsets offs[] from
 * the element's start, element i at i * extent; lb as MPI reports it. */
struct tdesc { int base, n; long lb, extent; const long *offs; };
struct expect { int comm, src, tag, type, count; };  /* a point-to-point message this rank receives */
struct slot { void *sb, *rb; };                       /* the buffers of one pending operation */
struct forced_checkpoint { int step, point; };

static int rank;
static uint64_t acc;          /* sum of hashes mod 2^64: independent of the order of arrival */
static uint64_t step_state;   /* acc when the step began */
static long received_messages, received_bytes, collective_calls;
static int current_step, current_call;
static const struct expect *expected;
static int expected_count;
static unsigned char seen[MAX_EXPECT];
static int trace;
static uint64_t jitter;       /* 0: no pauses */
static MPI_Datatype types[NTYPES];
static MPI_Comm comms[NCOMMS];
static MPI_Op ops[NOPS];
static const struct slot empty_slot;
static const int base_size[] = {4, 4, 8, 8, 8, 8};
"""

HELPERS = r"""
HELPER void fail(const char *what, long a, long b, long c) {
  fprintf(stderr, "mpi-random: rank %d step %d call %d: %s (%ld, %ld, %ld)\n", rank, current_step, current_call,
          what, a, b, c);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* --- values: element k of block (key, s, d) is a function of these alone --------------------- */
HELPER uint64_t raw_value(uint64_t key, int s, int d, long k) {
  return mix64(key ^ mix64(((uint64_t)(s + 1) << 48) ^ ((uint64_t)(d + 2) << 40) ^ (uint64_t)k));
}

/* The value of a base element, as 64 bits: INT/UNSIGNED the low 32, LONG/DOUBLE an integer
 * below 2^39 in magnitude (sums stay exact), 2INT value (0..7) low and index high. */
HELPER uint64_t base_value(int base, uint64_t r) {
  switch (base) {
  case B_INT:
  case B_UNSIGNED: return r & 0xffffffffu;
  case B_LONG:
  case B_DOUBLE: return (uint64_t)((int64_t)(r >> 24) - ((int64_t)1 << 39));
  case B_2INT: return (((r >> 40) % 1000) << 32) | (r % 8);
  default: return r;
  }
}

HELPER void store(unsigned char *p, int base, uint64_t v) {
  switch (base) {
  case B_INT:
  case B_UNSIGNED: {
    uint32_t x = (uint32_t)v;
    memcpy(p, &x, 4);
    break;
  }
  case B_DOUBLE: {
    double x = (double)(int64_t)v;
    memcpy(p, &x, 8);
    break;
  }
  case B_2INT: {
    int x[2];
    x[0] = (int)(uint32_t)v;
    x[1] = (int)(uint32_t)(v >> 32);
    memcpy(p, x, 8);
    break;
  }
  default: memcpy(p, &v, 8); break;
  }
}

HELPER int less(int base, uint64_t a, uint64_t b) {
  switch (base) {
  case B_INT: return (int32_t)(uint32_t)a < (int32_t)(uint32_t)b;
  case B_UNSIGNED: return (uint32_t)a < (uint32_t)b;
  case B_LONG:
  case B_DOUBLE: return (int64_t)a < (int64_t)b;
  default: return a < b;
  }
}

/* 2x2 matrices over Z/256, one per 32-bit value (bytes a0 a1 / a2 a3): not commutative. */
HELPER uint64_t matmul(uint64_t a, uint64_t b) {
  unsigned x[4], y[4], r = 0;
  for (int i = 0; i < 4; ++i) {
    x[i] = (unsigned)(a >> (8 * i)) & 0xff;
    y[i] = (unsigned)(b >> (8 * i)) & 0xff;
  }
  r |= ((x[0] * y[0] + x[1] * y[2]) & 0xff);
  r |= ((x[0] * y[1] + x[1] * y[3]) & 0xff) << 8;
  r |= ((x[2] * y[0] + x[3] * y[2]) & 0xff) << 16;
  r |= ((x[2] * y[1] + x[3] * y[3]) & 0xff) << 24;
  return r;
}

/* a op b, a from the lower rank (MPI's order for operators that do not commute). */
HELPER uint64_t fold(int op, int base, uint64_t a, uint64_t b) {
  uint64_t r;
  switch (op) {
  case OP_SUM: r = a + b; break;
  case OP_PROD: r = a * b; break;
  case OP_MAX: r = less(base, a, b) ? b : a; break;
  case OP_MIN: r = less(base, b, a) ? b : a; break;
  case OP_BAND: r = a & b; break;
  case OP_BOR: r = a | b; break;
  case OP_BXOR: r = a ^ b; break;
  case OP_MAXLOC:
  case OP_MINLOC: {
    int32_t va = (int32_t)(uint32_t)a, vb = (int32_t)(uint32_t)b;
    int32_t ia = (int32_t)(uint32_t)(a >> 32), ib = (int32_t)(uint32_t)(b >> 32);
    int better = op == OP_MAXLOC ? vb > va : vb < va;
    if (better || (va == vb && ib < ia)) r = b;
    else r = a;
    break;
  }
  case OP_MAT: r = matmul(a, b); break;
  case OP_BADD: {
    r = 0;
    for (int i = 0; i < 4; ++i) r |= (((a >> (8 * i)) + (b >> (8 * i))) & 0xff) << (8 * i);
    break;
  }
  default: r = (uint32_t)a > (uint32_t)b ? a : b; break;
  }
  if (base == B_INT || base == B_UNSIGNED) r &= 0xffffffffu;
  return r;
}

/* --- buffers described by datatypes ----------------------------------------------------- */
HELPER long type_end(int t) {
  const struct tdesc *d = &tdescs[t];
  long end = 0;
  for (int e = 0; e < d->n; ++e)
    if (d->offs[e] + base_size[d->base] > end) end = d->offs[e] + base_size[d->base];
  return end;
}

/* Bytes from the buffer's start to the end of element count - 1. */
HELPER long t_span(int t, long count) {
  return count <= 0 ? 0 : (count - 1) * tdescs[t].extent + type_end(t);
}

/* A buffer for count elements of t, every byte the sentinel. */
HELPER void *t_new(int t, long count) {
  long bytes = t_span(t, count);
  void *p = malloc((size_t)(bytes > 0 ? bytes : 1));
  if (!p) fail("out of memory", t, count, 0);
  memset(p, SENTINEL, (size_t)(bytes > 0 ? bytes : 1));
  return p;
}

/* A buffer of `bytes` bytes of the sentinel. */
HELPER void *bytes_new(long bytes) {
  void *p = malloc((size_t)(bytes > 0 ? bytes : 1));
  if (!p) fail("out of memory", bytes, 0, 0);
  memset(p, SENTINEL, (size_t)(bytes > 0 ? bytes : 1));
  return p;
}

/* Base element k (in type-signature order) of a buffer of t. */
HELPER unsigned char *t_elem(void *buffer, int t, long k) {
  const struct tdesc *d = &tdescs[t];
  return (unsigned char *)buffer + (k / d->n) * d->extent + d->offs[k % d->n];
}

/* count elements of t at buffer + off: elements first.. of block (key, s, d). */
HELPER void put_block(void *buffer, long off, int t, long count, uint64_t key, int s, int d, long first) {
  int base = tdescs[t].base;
  long n = count * tdescs[t].n;
  for (long k = 0; k < n; ++k)
    store(t_elem((char *)buffer + off, t, k), base, base_value(base, raw_value(key, s, d, first + k)));
}

/* count elements of t at buffer + off: elements first.. of the reduction over ranks lo..hi of
 * the blocks (key, rank, -1), in rank order. */
HELPER void put_reduced(void *buffer, long off, int t, long count, uint64_t key, int op, int lo, int hi, long first) {
  int base = tdescs[t].base;
  long n = count * tdescs[t].n;
  for (long k = 0; k < n; ++k) {
    uint64_t v = base_value(base, raw_value(key, lo, -1, first + k));
    for (int s = lo + 1; s <= hi; ++s) v = fold(op, base, v, base_value(base, raw_value(key, s, -1, first + k)));
    store(t_elem((char *)buffer + off, t, k), base, v);
  }
}

HELPER uint64_t hash_bytes(const void *p, long bytes) {
  const unsigned char *c = p;
  uint64_t h = 0x243f6a8885a308d3ULL;
  long i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < bytes; ++i) h = (h ^ c[i]) * 0x100000001b3ULL;
  return mix64(h);
}

/* The first `bytes` bytes of got must equal want (gaps keep the sentinel); folds them into acc
 * and frees want. */
HELPER void expect_bytes(const void *got, void *want, long bytes, int call, const char *what) {
  if (bytes > 0 && memcmp(got, want, (size_t)bytes) != 0) {
    long i = 0;
    while (((const unsigned char *)got)[i] == ((unsigned char *)want)[i]) ++i;
    current_call = call;
    fprintf(stderr, "mpi-random: rank %d step %d call %d: %s: byte %ld of %ld is 0x%02x, expected 0x%02x\n",
            rank, current_step, call, what, i, bytes, ((const unsigned char *)got)[i], ((unsigned char *)want)[i]);
    fail("wrong data (byte, bytes, 0)", i, bytes, 0);
  }
  acc += hash_bytes(got, bytes) ^ (uint64_t)call;
  free(want);
}

/* got holds count elements of t, block (key, s, d), and nothing else. */
HELPER void expect_block(const void *got, int t, long count, uint64_t key, int s, int d, int call, const char *what) {
  void *want = t_new(t, count);
  put_block(want, 0, t, count, key, s, d, 0);
  expect_bytes(got, want, t_span(t, count), call, what);
}

HELPER void coll_done(void) { ++collective_calls; }

/* --- handles the program holds ------------------------------------------------------------- */
HELPER void check_comm(int k, int size, int crank, int cart) {
  int s = -1, r = -1, topo = -1;
  if (comms[k] == MPI_COMM_NULL) fail("communicator is MPI_COMM_NULL (comm, size, rank)", k, size, crank);
  MPI_Comm_size(comms[k], &s);
  MPI_Comm_rank(comms[k], &r);
  if (s != size || r != crank) fail("communicator of another size or rank (comm, size, rank)", k, s, r);
  MPI_Topo_test(comms[k], &topo);
  if ((topo == MPI_CART) != (cart != 0)) fail("communicator of another topology (comm, topology, 0)", k, topo, 0);
}

HELPER void check_null(int k) {
  if (comms[k] != MPI_COMM_NULL) fail("communicator is not MPI_COMM_NULL (comm, 0, 0)", k, 0, 0);
}

/* want: ndims, dims[ndims], periods[ndims], coords[ndims] */
HELPER void check_cart(int k, const int *want) {
  int nd = -1, dims[8], periods[8], coords[8];
  MPI_Cartdim_get(comms[k], &nd);
  if (nd != want[0]) fail("cartesian communicator of another dimension (comm, ndims, 0)", k, nd, 0);
  MPI_Cart_get(comms[k], 8, dims, periods, coords);
  for (int i = 0; i < nd; ++i)
    if (dims[i] != want[1 + i] || (periods[i] != 0) != (want[1 + nd + i] != 0) || coords[i] != want[1 + 2 * nd + i])
      fail("cartesian communicator differs (comm, dimension, coordinate)", k, i, coords[i]);
}

HELPER void check_type(int t) {
  int size = -1;
  MPI_Aint lb = -1, extent = -1;
  MPI_Type_size(types[t], &size);
  MPI_Type_get_extent(types[t], &lb, &extent);
  const struct tdesc *d = &tdescs[t];
  if (size != d->n * base_size[d->base] || lb != d->lb || extent != d->extent)
    fail("datatype of another size, lb or extent (type, size, extent)", t, size, (long)extent);
}

HELPER void check_op(int k, int commute) {
  int c = -1;
  MPI_Op_commutative(ops[k], &c);
  if ((c != 0) != (commute != 0)) fail("operator commutes otherwise (op, commute, 0)", k, c, 0);
}

/* User-defined operators: they find the datatype's layout among the program's datatypes. */
HELPER int type_index(MPI_Datatype dt) {
  for (int t = 0; t < NTYPES; ++t)
    if (dt != MPI_DATATYPE_NULL && types[t] == dt) return t;
  return -1;
}

HELPER void uop_apply(int op, void *in, void *inout, int len, MPI_Datatype dt) {
  int t = type_index(dt);
  if (t < 0 || tdescs[t].base != B_INT) fail("a user operator got an unknown datatype (op, len, 0)", op, len, 0);
  for (long k = 0; k < (long)len * tdescs[t].n; ++k) {
    uint32_t a, b, r;
    memcpy(&a, t_elem(in, t, k), 4);
    memcpy(&b, t_elem(inout, t, k), 4);
    r = (uint32_t)fold(op, B_INT, a, b);
    memcpy(t_elem(inout, t, k), &r, 4);
  }
}

HELPER void uop_mat(void *in, void *inout, int *len, MPI_Datatype *dt) { uop_apply(OP_MAT, in, inout, *len, *dt); }
HELPER void uop_badd(void *in, void *inout, int *len, MPI_Datatype *dt) { uop_apply(OP_BADD, in, inout, *len, *dt); }
HELPER void uop_umax(void *in, void *inout, int *len, MPI_Datatype *dt) { uop_apply(OP_UMAX, in, inout, *len, *dt); }

/* --- point to point --------------------------------------------------------------------------- */
HELPER uint64_t msg_key(int comm, int tag) {
  return mix64(PROGRAM_SEED ^ 0x5bd1e995ULL ^ ((uint64_t)comm << 40) ^ (uint64_t)tag);
}

HELPER int find_expected(int comm, int src, int tag) {
  for (int i = 0; i < expected_count; ++i)
    if (!seen[i] && expected[i].comm == comm && expected[i].src == src && expected[i].tag == tag) return i;
  return -1;
}

/* A message of comm arrived in buffer (capacity elements of t): checks it against the expected
 * set and folds it into acc. */
HELPER void p2p_done(const void *buffer, int t, long capacity, int comm, const MPI_Status *status) {
  int src = status->MPI_SOURCE, tag = status->MPI_TAG, count = -1;
  int i = find_expected(comm, src, tag);
  if (i < 0) fail("unexpected message (comm, source, tag)", comm, src, tag);
  const struct expect *e = &expected[i];
  if (e->type != t) fail("message received with another type (source, tag, type)", src, tag, t);
  MPI_Get_count(status, types[t], &count);
  if (count != e->count) fail("wrong element count (source, tag, count)", src, tag, count);
  void *want = t_new(t, capacity);
  put_block(want, 0, t, count, msg_key(comm, tag), src, -1, 0);
  expect_bytes(buffer, want, t_span(t, capacity), tag, "point-to-point message");
  seen[i] = 1;
  ++received_messages;
  received_bytes += (long)count * tdescs[t].n * base_size[tdescs[t].base];
  if (trace)
    fprintf(stderr, "trace: rank %d step %d comm %d got source %d tag %d count %d\n", rank, current_step, comm, src, tag, count);
}

HELPER void *send_buffer(int comm, int t, int count, int tag, int me) {
  void *b = t_new(t, count);
  put_block(b, 0, t, count, msg_key(comm, tag), me, -1, 0);
  return b;
}

/* Sends one message; returns when its buffer may be reused. */
HELPER void send_msg(int comm, int dst, int tag, int t, int count, int mode, int me) {
  void *b = send_buffer(comm, t, count, tag, me);
  MPI_Request request;
  switch (mode) {
  case SEND_SEND: MPI_Send(b, count, types[t], dst, tag, comms[comm]); break;
  case SEND_SSEND: MPI_Ssend(b, count, types[t], dst, tag, comms[comm]); break;
  case SEND_ISEND: MPI_Isend(b, count, types[t], dst, tag, comms[comm], &request); break;
  default: MPI_Issend(b, count, types[t], dst, tag, comms[comm], &request); break;
  }
  if (mode >= SEND_ISEND) MPI_Wait(&request, MPI_STATUS_IGNORE);
  free(b);
}

/* Receives one message of comm from src with tag (either may be a wildcard) into capacity
 * elements of t; the probing ways take type and count from the expected messages instead. */
HELPER void recv_msg(int comm, int src, int tag, int t, int capacity, int how, int site) {
  MPI_Status status;
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Request request;
  int flag = 0, i;
  void *buffer;
  switch (how) {
  case RECV_RECV:
  case RECV_IRECV_WAIT:
  case RECV_IRECV_TEST:
    buffer = t_new(t, capacity);
    if (how == RECV_RECV) {
      MPI_Recv(buffer, capacity, types[t], src, tag, comms[comm], &status);
    } else {
      MPI_Irecv(buffer, capacity, types[t], src, tag, comms[comm], &request);
      if (how == RECV_IRECV_WAIT) {
        MPI_Wait(&request, &status);
      } else {
        for (;;) {
          MPI_Test(&request, &flag, &status);
          if (flag) break;
          poll_pause(site);
        }
      }
    }
    p2p_done(buffer, t, capacity, comm, &status);
    free(buffer);
    return;
  case RECV_PROBE: MPI_Probe(src, tag, comms[comm], &status); break;
  case RECV_MPROBE: MPI_Mprobe(src, tag, comms[comm], &message, &status); break;
  case RECV_IPROBE:
    for (;;) {
      MPI_Iprobe(src, tag, comms[comm], &flag, &status);
      if (flag) break;
      poll_pause(site);
    }
    break;
  default:
    for (;;) {
      MPI_Improbe(src, tag, comms[comm], &flag, &message, &status);
      if (flag) break;
      poll_pause(site);
    }
    break;
  }
  i = find_expected(comm, status.MPI_SOURCE, status.MPI_TAG);
  if (i < 0) fail("probe found an unexpected message (comm, source, tag)", comm, status.MPI_SOURCE, status.MPI_TAG);
  t = expected[i].type;
  capacity = expected[i].count;
  buffer = t_new(t, capacity);
  if (how == RECV_MPROBE || how == RECV_IMPROBE)
    MPI_Mrecv(buffer, capacity, types[t], &message, &status);
  else
    MPI_Recv(buffer, capacity, types[t], status.MPI_SOURCE, status.MPI_TAG, comms[comm], &status);
  p2p_done(buffer, t, capacity, comm, &status);
  free(buffer);
}

/* Completes the requests req[ids[0..n)] the way `how` says; their statuses go to sts[ids[i]]. */
HELPER void complete_ids(int n, const int *ids, MPI_Request *req, MPI_Status *sts, int how, int site) {
  MPI_Request r[MAX_SLOTS];
  MPI_Status s[MAX_SLOTS], one;
  int done[MAX_SLOTS], indices[MAX_SLOTS];
  int left = n, flag = 0, k = 0, outcount = 0;
  for (int i = 0; i < n; ++i) {
    r[i] = req[ids[i]];
    done[i] = 0;
  }
  switch (how) {
  case DONE_WAIT:
    for (int i = 0; i < n; ++i) MPI_Wait(&r[i], &s[i]);
    break;
  case DONE_WAITALL: MPI_Waitall(n, r, s); break;
  case DONE_WAITANY:
    for (; left > 0; --left) {
      MPI_Waitany(n, r, &k, &one);
      if (k == MPI_UNDEFINED || done[k]) fail("MPI_Waitany: bad index (index, left, n)", k, left, n);
      s[k] = one;
      done[k] = 1;
    }
    break;
  case DONE_WAITSOME:
    while (left > 0) {
      MPI_Status some[MAX_SLOTS];
      MPI_Waitsome(n, r, &outcount, indices, some);
      if (outcount == MPI_UNDEFINED || outcount < 1) fail("MPI_Waitsome: nothing completed (outcount, left, n)", outcount, left, n);
      for (int i = 0; i < outcount; ++i) s[indices[i]] = some[i];
      left -= outcount;
    }
    break;
  case DONE_TESTALL:
    for (;;) {
      MPI_Testall(n, r, &flag, s);
      if (flag) break;
      poll_pause(site);
    }
    break;
  case DONE_TESTANY:
    while (left > 0) {
      MPI_Testany(n, r, &k, &flag, &one);
      if (flag && (k == MPI_UNDEFINED || done[k])) fail("MPI_Testany: bad index (index, left, n)", k, left, n);
      if (flag) {
        s[k] = one;
        done[k] = 1;
        --left;
      } else {
        poll_pause(site);
      }
    }
    break;
  case DONE_TESTSOME:
    while (left > 0) {
      MPI_Status some[MAX_SLOTS];
      MPI_Testsome(n, r, &outcount, indices, some);
      if (outcount == MPI_UNDEFINED) fail("MPI_Testsome: no active request left (left, n, 0)", left, n, 0);
      for (int i = 0; i < outcount; ++i) s[indices[i]] = some[i];
      left -= outcount;
      if (outcount == 0) poll_pause(site);
    }
    break;
  default:
    while (left > 0) {
      for (int i = 0; i < n; ++i) {
        if (done[i]) continue;
        MPI_Test(&r[i], &flag, &s[i]);
        if (flag) {
          done[i] = 1;
          --left;
        }
      }
      if (left > 0) poll_pause(site);
    }
    break;
  }
  for (int i = 0; i < n; ++i) {
    req[ids[i]] = r[i];
    sts[ids[i]] = s[i];
  }
}

HELPER void begin_step(int step, const struct expect *table, int n) {
  current_step = step;
  current_call = -1;
  expected = table;
  expected_count = n;
  memset(seen, 0, sizeof seen);
  step_state = acc;
}

HELPER void end_step(void) {
  for (int i = 0; i < expected_count; ++i)
    if (!seen[i]) fail("message never received (comm, source, tag)", expected[i].comm, expected[i].src, expected[i].tag);
}
"""

CHECKPOINT_FORCED = r"""
/* Rank r takes its forced checkpoints at forced[r]: (step, point), point 0 = end of step; a
 * point with `site` set is an unforced checkpoint site otherwise. */
static void checkpoint_point(int step, int point, int site) {
  for (int k = 0; k < 2; ++k) {
    if (forced[rank][k].step == step && forced[rank][k].point == point) {
#pragma ccc_checkpoint force
      return;
    }
  }
  if (site) {
#pragma ccc_checkpoint
  }
}
"""

CHECKPOINT_INTERVAL = r"""
/* Every point is an unforced checkpoint site: checkpoints follow C3_INTERVAL. */
static void checkpoint_point(int step, int point, int site) {
  (void)step;
  (void)point;
  (void)site;
#pragma ccc_checkpoint
}
"""

MAIN = r"""
static void setup(void) {
  const char *j = getenv("MPI_RANDOM_JITTER");
  const char *t = getenv("MPI_RANDOM_TRACE");
  trace = t && *t && *t != '0';
  if (j && *j) jitter = mix64(strtoull(j, NULL, 10) * 1000 + (uint64_t)rank) | 1;
  for (int i = 0; i < NTYPES; ++i) types[i] = MPI_DATATYPE_NULL;
  types[0] = MPI_INT;
  types[1] = MPI_UNSIGNED;
  types[2] = MPI_LONG;
  types[3] = MPI_DOUBLE;
  types[4] = MPI_2INT;
  types[5] = MPI_UINT64_T;
  for (int i = 0; i < NCOMMS; ++i) comms[i] = MPI_COMM_NULL;
  comms[0] = MPI_COMM_WORLD;
  comms[1] = MPI_COMM_SELF;
  for (int i = 0; i < NOPS; ++i) ops[i] = MPI_OP_NULL;
  ops[0] = MPI_SUM;
  ops[1] = MPI_PROD;
  ops[2] = MPI_MAX;
  ops[3] = MPI_MIN;
  ops[4] = MPI_BAND;
  ops[5] = MPI_BOR;
  ops[6] = MPI_BXOR;
  ops[7] = MPI_MAXLOC;
  ops[8] = MPI_MINLOC;
}

/* Every rank's checksum goes to rank 0, which prints them all. */
static void finish(void) {
  long mine[4] = {(long)acc, received_messages, received_bytes, collective_calls};
  if (rank != 0) {
    MPI_Send(mine, 4, MPI_LONG, 0, FINAL_TAG, MPI_COMM_WORLD);
    return;
  }
  uint64_t all = 0;
  for (int r = 0; r < NRANKS; ++r) {
    long theirs[4];
    if (r == 0) {
      memcpy(theirs, mine, sizeof mine);
    } else {
      MPI_Status status;
      int count = -1;
      MPI_Recv(theirs, 4, MPI_LONG, r, FINAL_TAG, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_LONG, &count);
      if (count != 4) fail("bad final message (source, count, 0)", r, count, 0);
    }
    printf("rank %d: checksum %016llx, %ld messages, %ld bytes, %ld collectives\n", r,
           (unsigned long long)theirs[0], theirs[1], theirs[2], theirs[3]);
    all = mix64(all ^ (uint64_t)theirs[0]);
  }
  printf("all ranks: %016llx\n", (unsigned long long)all);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NRANKS) {
    if (rank == 0) fprintf(stderr, "mpi-random: this program needs %d ranks, not %d\n", NRANKS, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  setup();
  if (rank == 0) printf("mpi-random-coll: %d ranks, %d steps\n", NRANKS, NSTEPS);
  for (int step = 0; step < NSTEPS; ++step) {
    run_step(step);
    checkpoint_point(step, 0, 0);
#pragma ccc_checkpoint
    if (rank == 0) {
      printf("step %3d %-8s acc %016llx messages %ld, bytes %ld, collectives %ld\n", step, step_kind[step],
             (unsigned long long)acc, received_messages, received_bytes, collective_calls);
      if (FLUSH_EVERY_LINE) fflush(stdout);
    }
  }
  finish();
  cleanup();
  MPI_Finalize();
  return 0;
}
"""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
