#!/usr/bin/env python3
"""Generates a random, deadlock-free MPI point-to-point C program for the c3 protocol tests.

  gen_p2p.py --seed S --ranks N [--steps K] [--kinds seq,nb,...] [-o prog.c] [--describe]

The program runs K steps; each step is one randomly chosen communication phase (see KINDS).
Every choice derives from (seed, ranks, options), so they reproduce the program.

Determinism of the output does not depend on how messages match:
  * every send has exactly one matching receive, and each rank knows the set of messages it
    receives in a step (source, tag, type, count); wildcard receives look the message up there;
  * a rank folds each message into `acc`, a sum of per-message hashes mod 2^64, so the order of
    arrival does not matter, and payloads depend only on the sender's `acc` at the start of the
    step (and on the message's identity), never on what arrived during the step;
  * rank 0 alone prints: one line per step and, at the end, every rank's checksum, which the
    ranks send to it point to point.

Deadlock freedom holds by construction (each kind's generator says why), with any send mode
behaving as synchronous. Tags are unique per step (step * 128 + i), so messages of different
steps never match each other's receives; MPI_ANY_TAG is used only where the message is the next
one from its source (non-overtaking), MPI_ANY_SOURCE only with a tag whose messages to that
rank are all received the same way, and both together only inside a fenced step.

Checkpoints: every rank has one or two `#pragma ccc_checkpoint force` at (step, point) pairs of
its own, where point 0 is the end of a step and points > 0 are in the middle of a phase (some
with requests outstanding); an unforced `#pragma ccc_checkpoint` ends every step and sits in
some polling loops.

Environment of the generated program (testing aids, no effect on stdout):
  MPI_RANDOM_JITTER=<n>  random short sleeps at many points (seeded by n and the rank), to
                         shake the matching order;
  MPI_RANDOM_TRACE=1     one stderr line per received message (who sent what, in which order).
"""
import argparse
import json
import random
import sys

from common import C_HELPERS, Code

TAGS_PER_STEP = 128
MAX_MESSAGE_TAGS = 60   # message tags of a step: base + 0 .. base + 59
TOKEN_OFFSET = 64       # ready-send tokens: base + 64 + i for message tag base + i
NEVER_TAG = 120         # receives that are cancelled: no message ever carries this tag
FARM_REQUEST, FARM_TASK, FARM_STOP, FENCE_DONE = 121, 122, 123, 124
FINAL_TAG = 32766
MAX_STEPS = 240         # 240 * 128 < 32767, the smallest MPI_TAG_UB the standard allows
MAX_BSEND_COUNT = 6000    # up to 48 KiB: buffered sends above the bounce limit (8 KiB) travel split

# (code, MPI datatype, size in bytes)
TYPES = [("T_INT", "MPI_INT", 4), ("T_DOUBLE", "MPI_DOUBLE", 8), ("T_CHAR", "MPI_CHAR", 1),
         ("T_LONG", "MPI_LONG", 8)]

KINDS = {
    "seq": "blocking operations in one global order (p2p, wildcard groups, shifts, ready sends)",
    "nb": "nonblocking exchange: pre-posted receives, sends of every mode, probes, completion",
    "ring": "ring shift over all ranks, several rounds (Sendrecv, _replace, Isend, persistent)",
    "farm": "task farm: a master hands out tasks to whichever worker asks (ANY_SOURCE)",
    "gather": "fenced gather: a master receives with MPI_ANY_SOURCE and MPI_ANY_TAG",
    "stream": "windows of exact receives on one tag from one sender, mixed sizes, some with "
              "one message taken by MPI_Mprobe/MPI_Improbe",
}
KIND_WEIGHTS = {"seq": 24, "nb": 30, "ring": 14, "farm": 10, "gather": 10, "stream": 12}

# Features --avoid can leave out (to narrow down a failure).
FEATURES = {
    "bsend": "MPI_Bsend, MPI_Ibsend (and the attached buffer)",
    "rsend": "MPI_Rsend, MPI_Irsend",
    "ssend": "MPI_Ssend, MPI_Issend",
    "probe": "every probe: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe",
    "mprobe": "MPI_Mprobe, MPI_Improbe, MPI_Mrecv",
    "persistent": "MPI_Send_init, MPI_Recv_init, MPI_Start(all), MPI_Request_free",
    "cancel": "MPI_Cancel of receives nothing matches",
    "polling": "MPI_Test* and MPI_Iprobe/MPI_Improbe polling loops",
    "anysource": "MPI_ANY_SOURCE (also leaves out the farm and gather kinds)",
    "anytag": "MPI_ANY_TAG (also leaves out the farm and gather kinds)",
}


def features_of(option):
    """The --avoid features an option of a random choice uses."""
    o = option.lower()
    found = set()
    if "bsend" in o:
        found.add("bsend")
    if o in ("rsend", "irsend"):
        found.add("rsend")
    if o in ("ssend", "issend"):
        found.add("ssend")
    if "probe" in o:
        found.add("probe")
    if o in ("mprobe", "improbe"):
        found.add("mprobe")
    if o == "persistent":
        found.add("persistent")
    if o.startswith("test") or o in ("iprobe", "improbe", "irecv-test"):
        found.add("polling")
    return found


def ctype(t):
    return TYPES[t][0]


def mpitype(t):
    return TYPES[t][1]


class Message:
    def __init__(self, src, dst, tag, ty, count, round_=0):
        self.src, self.dst, self.tag, self.ty, self.count, self.round = src, dst, tag, ty, count, round_

    def bytes(self):
        return self.count * TYPES[self.ty][2]


class Step:
    """One step of the program. Subclasses fill, per rank, the code, the expected incoming
    messages and the checkpoint points the rank passes."""

    kind = "?"

    def __init__(self, prog, index):
        self.prog = prog
        self.index = index
        self.rng = prog.rng
        self.n = prog.ranks
        self.code = {r: Code() for r in range(self.n)}
        self.expect = {r: [] for r in range(self.n)}
        self.points = {r: [] for r in range(self.n)}
        self.next_tag = 0
        self.summary = self.kind
        self.functions = []  # C lines of functions the step's code calls

    # --- helpers shared by the kinds ------------------------------------------------------

    def new_tag(self):
        assert self.next_tag < MAX_MESSAGE_TAGS
        tag = self.index * TAGS_PER_STEP + self.next_tag
        self.next_tag += 1
        return tag

    def special_tag(self, offset):
        return self.index * TAGS_PER_STEP + offset

    def count_among(self, brackets):
        """An element count: 0 or uniform in one of the brackets ((up to, below r), ...), the
        first whose r exceeds a uniform draw."""
        r = self.rng.random()
        for (low, high), below in brackets:
            if r < below:
                return 0 if high == 0 else self.rng.randint(low, high)
        raise AssertionError("brackets must end at 1.0")

    def random_count(self, cap=20000):
        return self.count_among((((0, 0), 0.1), ((1, 16), 0.55), ((17, 1500), 0.85),
                                 ((1500, cap), 1.0)))

    def random_type(self):
        return self.rng.randrange(len(TYPES))

    def message(self, src, dst, tag=None, ty=None, count=None, round_=0, cap=20000):
        m = Message(src, dst, self.new_tag() if tag is None else tag,
                    self.random_type() if ty is None else ty,
                    self.random_count(cap) if count is None else count, round_)
        self.expect[dst].append(m)
        return m

    def pick(self, options):
        """rng.choice among the options that use no avoided feature (the same choice as
        without --avoid when nothing is avoided)."""
        allowed = [o for o in options if not features_of(o) & self.prog.avoid]
        if not allowed:
            raise SystemExit(f"gen_p2p.py: --avoid leaves no choice among {', '.join(options)}")
        return self.rng.choice(allowed)

    def avoids(self, feature):
        return feature in self.prog.avoid

    def other(self, r):
        return self.rng.choice([q for q in range(self.n) if q != r])

    def point(self, r, c):
        """A place where rank r may take its forced checkpoint (the plan decides)."""
        p = len(self.points[r]) + 1
        self.points[r].append(p)
        c(f"checkpoint_point({self.index}, {p});")

    def poll_body(self, c):
        """What a polling loop does between two unsuccessful tests: pause, and in some loops
        pass an unforced checkpoint site."""
        c(f"poll_pause({self.poll_flag()});")

    def poll_flag(self):
        return 1 if self.rng.random() < 0.5 else 0

    def bsend_ok(self, m):
        return m.count <= MAX_BSEND_COUNT

    def note_bsend(self, m):
        self.prog.bsend_bytes[m.src] += m.bytes()
        self.prog.bsend_messages[m.src] += 1

    # --- sends ----------------------------------------------------------------------------

    def blocking_send(self, c, m, mode):
        """A send that returns when its buffer may be reused (I* modes wait at once)."""
        if "bsend" in mode.lower():
            self.note_bsend(m)
        c(f"send_one({ctype(m.ty)}, {m.count}, {m.dst}, {m.tag}, SEND_{mode.upper()}, {m.round});")

    def send_mode(self, m, allow=("Send", "Ssend", "Bsend", "Isend", "Issend", "Ibsend")):
        modes = [x for x in allow if self.bsend_ok(m) or "bsend" not in x.lower()]
        return self.pick(modes)

    # --- receives of one known message ----------------------------------------------------

    def probe_receive(self, c, src, tag, how):
        """Receives one message found by a probe; its type and size come from the rank's list
        of expected messages."""
        c(f"recv_one(-1, 0, {src}, {tag}, RECV_{how.upper()}, {self.poll_flag()});")

    def typed_receive(self, c, src, tag, ty, count, how):
        """Receives one message of known type into a buffer of `count` elements."""
        how = how.upper().replace("-", "_")
        c(f"recv_one({ctype(ty)}, {count}, {src}, {tag}, RECV_{how}, {self.poll_flag()});")

    def receive_one(self, c, m, src, tag):
        how = self.pick(["Recv", "Recv", "Irecv-Wait", "Irecv-Test", "Probe", "Mprobe", "Iprobe",
                         "Improbe"])
        if how in ("Probe", "Mprobe", "Iprobe", "Improbe"):
            self.probe_receive(c, src, tag, how)
        else:
            self.typed_receive(c, src, tag, m.ty, m.count, how)
        return how

    def source_and_tag(self, m, any_tag_ok=True):
        """Specific source and tag, or one wildcard where it is safe: MPI_ANY_SOURCE since the
        tag is m's alone, MPI_ANY_TAG when m is the next message from its source."""
        r = self.rng.random()
        if r < 0.25 and not self.avoids("anysource"):
            return "MPI_ANY_SOURCE", str(m.tag)
        if 0.25 <= r < 0.45 and any_tag_ok and not self.avoids("anytag"):
            return str(m.src), "MPI_ANY_TAG"
        return str(m.src), str(m.tag)

    # --- completion of a set of requests --------------------------------------------------

    def complete(self, c, count):
        """Completes requests req[0..count) whose slots sl[] say what each one is."""
        self.prog.max_requests = max(self.prog.max_requests, count)
        how = self.pick(["Waitall", "Wait", "Waitany", "Waitsome", "Testall", "Testany",
                               "Testsome", "Test"])
        if how == "Wait":  # one by one, in a random order
            order = list(range(count))
            self.rng.shuffle(order)
            for i in order:
                c(f"MPI_Wait(&req[{i}], &sts[{i}]);", f"slot_done(&sl[{i}], &sts[{i}]);")
        else:
            c(f"complete({count}, req, sts, sl, DONE_{how.upper()}, {self.poll_flag()});")
        return how

    # --- the step as C ----------------------------------------------------------------------

    def build(self):
        raise NotImplementedError

    def emit(self, out):
        out.append(f"/* step {self.index}: {self.summary} */")
        for r in range(self.n):
            exp = self.expect[r]
            if exp:
                out.append(f"static const struct expect expect_{self.index}_{r}[] = {{")
                for m in exp:
                    out.append(f"  {{{m.src}, {m.tag}, {ctype(m.ty)}, {m.count}, {m.round}}},")
                out.append("};")
        out.extend(self.functions)
        out.append(f"static void step_{self.index}(void) {{")
        out.append("  switch (rank) {")
        for r in range(self.n):
            table = f"expect_{self.index}_{r}" if self.expect[r] else "NULL"
            out.append(f"  case {r}: {{")
            cancel = self.rng.random() < 0.15 and not self.avoids("cancel")
            if cancel:
                src = self.rng.choice(["MPI_ANY_SOURCE", str(self.other(r))])
                out.append("    MPI_Request never;")
                out.append("    int never_buffer;")
            out.append(f"    begin_step({self.index}, {table}, {len(self.expect[r])});")
            if cancel:
                out.append(f"    MPI_Irecv(&never_buffer, 1, MPI_INT, {src}, "
                           f"{self.special_tag(NEVER_TAG)}, MPI_COMM_WORLD, &never);")
            out.append("    pause_maybe();")
            out.extend(self.code[r].lines)
            if cancel:
                out.append("    cancel_never(&never);")
            out.append("    end_step();")
            out.append("    break;")
            out.append("  }")
        out.append("  }")
        out.append("}")
        out.append("")


class SeqStep(Step):
    """Blocking operations in one global order of elements. Each rank performs its part of
    the elements in that order; an element's participants need nothing outside the element to
    finish it, so the earliest unfinished element can always progress (even when every send is
    synchronous)."""

    kind = "seq"

    def build(self):
        n = self.n
        elements = self.rng.randint(2, 3 * n)
        names = []
        for _ in range(elements):
            if self.next_tag > MAX_MESSAGE_TAGS - n:
                break
            choice = self.rng.choices(["p2p", "group", "shift", "rsend"],
                                      [50, 15 if n >= 3 and not self.avoids("anysource") else 0,
                                       20, 0 if self.avoids("rsend") else 15])[0]
            getattr(self, "element_" + choice)()
            names.append(choice)
        self.summary = f"seq ({' '.join(names)})"

    def participants_point(self, ranks):
        for r in sorted(set(ranks)):
            if self.rng.random() < 0.5:
                self.point(r, self.code[r])
            self.code[r]("pause_maybe();")

    def element_p2p(self):
        src, dst = self.rng.sample(range(self.n), 2)
        m = self.message(src, dst)
        self.blocking_send(self.code[src], m, self.send_mode(m))
        s, t = self.source_and_tag(m)
        self.receive_one(self.code[dst], m, s, t)
        self.participants_point([src, dst])

    def element_group(self):
        """k senders to one receiver with one tag; the receiver takes them in any order with
        MPI_ANY_SOURCE."""
        dst = self.rng.randrange(self.n)
        senders = self.rng.sample([r for r in range(self.n) if r != dst],
                                  self.rng.randint(2, self.n - 1))
        tag = self.new_tag()
        how = self.pick(["Recv", "Irecv", "Probe", "Mprobe", "Iprobe", "Improbe"])
        common = self.random_type()
        msgs = [self.message(s, dst, tag=tag, ty=common if how in ("Recv", "Irecv") else None)
                for s in senders]
        for m in msgs:
            self.blocking_send(self.code[m.src], m, self.send_mode(m))
        c = self.code[dst]
        k = len(msgs)
        if how in ("Probe", "Mprobe", "Iprobe", "Improbe"):
            for _ in msgs:
                self.probe_receive(c, "MPI_ANY_SOURCE", tag, how)
        elif how == "Recv":
            biggest = max(m.count for m in msgs)
            for _ in msgs:
                self.typed_receive(c, "MPI_ANY_SOURCE", tag, common, biggest, "Recv")
        else:
            biggest = max(m.count for m in msgs)
            c.open("{")
            c(f"MPI_Request req[{k}];", f"MPI_Status sts[{k}];", f"struct slot sl[{k}];")
            for i in range(k):
                c(f"sl[{i}] = recv_slot({ctype(common)}, {biggest});")
                c(f"MPI_Irecv(sl[{i}].buffer, {biggest}, {mpitype(common)}, MPI_ANY_SOURCE, {tag}, "
                  f"MPI_COMM_WORLD, &req[{i}]);")
            self.complete(c, k)
            c(f"for (int i = 0; i < {k}; ++i) slot_release(&sl[i], &req[i]);")
            c.close()
        self.participants_point(senders + [dst])

    def element_shift(self):
        """A cycle of ranks, each sending to the next and receiving from the previous one in a
        single Sendrecv (or Sendrecv_replace)."""
        size = self.rng.randint(2, self.n)
        cycle = self.rng.sample(range(self.n), size)
        replace = self.rng.random() < 0.4
        ty, count = self.random_type(), self.random_count()
        msgs = []
        for i, r in enumerate(cycle):
            nxt = cycle[(i + 1) % size]
            msgs.append(self.message(r, nxt, ty=ty if replace else None,
                                     count=count if replace else None))
        for i, r in enumerate(cycle):
            out, inc = msgs[i], msgs[i - 1]
            s, t = self.source_and_tag(inc)
            c = self.code[r]
            c.open("{")
            c("MPI_Status st;")
            c(f"void *sb = send_payload({ctype(out.ty)}, {out.count}, {out.dst}, {out.tag}, 0);")
            if replace:
                c(f"MPI_Sendrecv_replace(sb, {out.count}, {mpitype(out.ty)}, {out.dst}, {out.tag}, "
                  f"{s}, {t}, MPI_COMM_WORLD, &st);")
                c(f"receive_done(sb, {ctype(inc.ty)}, &st);")
            else:
                c(f"void *rb = recv_buffer({ctype(inc.ty)}, {inc.count});")
                c(f"MPI_Sendrecv(sb, {out.count}, {mpitype(out.ty)}, {out.dst}, {out.tag}, "
                  f"rb, {inc.count}, {mpitype(inc.ty)}, {s}, {t}, MPI_COMM_WORLD, &st);")
                c(f"receive_done(rb, {ctype(inc.ty)}, &st);")
                c("free(rb);")
            c("free(sb);")
            c.close()
        self.participants_point(cycle)

    def element_rsend(self):
        """A ready send: the receiver posts its receive, then tells the sender (token), which
        only then calls MPI_Rsend."""
        src, dst = self.rng.sample(range(self.n), 2)
        m = self.message(src, dst)
        token = m.tag + TOKEN_OFFSET
        c = self.code[dst]
        c.open("{")
        c("MPI_Request rr;", "MPI_Status st;")
        c(f"void *rb = recv_buffer({ctype(m.ty)}, {m.count});")
        c(f"MPI_Irecv(rb, {m.count}, {mpitype(m.ty)}, {src}, {m.tag}, MPI_COMM_WORLD, &rr);")
        c(f"token_send({src}, {token});")
        c("MPI_Wait(&rr, &st);")
        c(f"receive_done(rb, {ctype(m.ty)}, &st);")
        c("free(rb);")
        c.close()
        c = self.code[src]
        c.open("{")
        c(f"void *sb = send_payload({ctype(m.ty)}, {m.count}, {dst}, {m.tag}, 0);")
        c(f"token_recv({dst}, {token});")
        c(f"MPI_Rsend(sb, {m.count}, {mpitype(m.ty)}, {dst}, {m.tag}, MPI_COMM_WORLD);")
        c("free(sb);")
        c.close()
        self.participants_point([src, dst])


class NbStep(Step):
    """Nonblocking exchange. Each rank (1) posts the receives it pre-posts and the ready-send
    tokens, none of which block; (2) sends, blocking sends only to pre-posted receives and ready
    sends only after their token; (3) receives with probes the messages sent without blocking;
    (4) completes everything. Phases 1-2 finish on every rank whatever the others do, after
    them every message is on its way, so 3 and 4 finish."""

    kind = "nb"

    def build(self):
        n, rng = self.n, self.rng
        plan = []  # (message, receive form, send mode)
        count = rng.randint(1, 2 * n + 2)
        for _ in range(count):
            src, dst = rng.sample(range(n), 2)
            plan.append([self.message(src, dst), None, None])
        if n >= 3 and rng.random() < 0.4 and not self.avoids("anysource"):
            # a group sharing a tag, received with ANY_SOURCE
            dst = rng.randrange(n)
            senders = rng.sample([r for r in range(n) if r != dst], rng.randint(2, n - 1))
            tag = self.new_tag()
            probed = rng.random() < 0.5
            ty = self.random_type()
            for s in senders:
                m = self.message(s, dst, tag=tag, ty=None if probed else ty)
                plan.append([m, "group-probe" if probed else "group-irecv", None])
        # Receive forms.
        for entry in plan:
            m = entry[0]
            if entry[1]:
                continue
            sole = sum(1 for e in plan if e[0].src == m.src and e[0].dst == m.dst) == 1
            entry[1] = self.pick(["irecv", "irecv", "persistent", "probe"])
            entry.append(self.source_and_tag(m, any_tag_ok=sole))
        # Send modes.
        for entry in plan:
            m, form = entry[0], entry[1]
            preposted = form in ("irecv", "persistent", "group-irecv")
            modes = ["Isend", "Issend", "Ibsend", "persistent", "Bsend"]
            if preposted:
                modes += ["Send", "Ssend"]
            if form == "irecv" and entry[3][0] != "MPI_ANY_SOURCE":
                modes += ["Rsend", "Irsend"]
            entry[2] = self.send_mode(m, modes)
        # A ready send's token goes from its receiver to its sender: a receive with
        # MPI_ANY_TAG there could take the token instead of its message.
        token_routes = {(e[0].dst, e[0].src) for e in plan if e[2] in ("Rsend", "Irsend")}
        for e in plan:
            if len(e) > 3 and e[3][1] == "MPI_ANY_TAG" and (e[0].src, e[0].dst) in token_routes:
                e[3] = (str(e[0].src), str(e[0].tag))
        rng.shuffle(plan)
        self.plan = plan
        for r in range(n):
            self.build_rank(r)
        forms = sorted({e[1] for e in plan})
        modes = sorted({e[2] for e in plan})
        self.summary = f"nb ({len(plan)} messages; receives {','.join(forms)}; sends {','.join(modes)})"

    def build_rank(self, r):
        c = self.code[r]
        rng = self.rng
        sends = [e for e in self.plan if e[0].src == r]  # in this order
        incoming = [e for e in self.plan if e[0].dst == r]
        # Pre-posted receives from one source follow that source's send order (with
        # MPI_ANY_TAG, the first posted receive takes the first message).
        preposted = [e for e in incoming if e[1] in ("irecv", "persistent", "group-irecv")]
        preposted.sort(key=lambda e: (e[0].src, [x for x in self.plan if x[0].src == e[0].src].index(e)))
        probed = [e for e in incoming if e[1] in ("probe", "group-probe")]
        nonblocking_sends = [e for e in sends if e[2] in ("Isend", "Issend", "Ibsend", "persistent", "Irsend")]
        tokens = [e for e in preposted if e[2] in ("Rsend", "Irsend")]
        slots = len(preposted) + len(nonblocking_sends) + len(tokens)
        persistent = []
        c.open("{")
        if slots:
            c(f"MPI_Request req[{slots}];", f"MPI_Status sts[{slots}];", f"struct slot sl[{slots}];")
        k = 0
        # 1. receives and tokens
        for e in preposted:
            m, form = e[0], e[1]
            if form == "group-irecv":
                group = [x[0] for x in incoming if x[0].tag == m.tag]
                count = max(x.count for x in group)
                src, tag = "MPI_ANY_SOURCE", str(m.tag)
            else:
                count = m.count
                src, tag = e[3]
            c(f"sl[{k}] = recv_slot({ctype(m.ty)}, {count});")
            args = f"sl[{k}].buffer, {count}, {mpitype(m.ty)}, {src}, {tag}, MPI_COMM_WORLD, &req[{k}]"
            if form == "persistent":
                c(f"MPI_Recv_init({args});")
                c(f"sl[{k}].persistent = 1;")
                persistent.append(k)
            else:
                c(f"MPI_Irecv({args});")
            e.append(k)
            k += 1
        rng.shuffle(persistent)
        if len(persistent) > 1 and rng.random() < 0.5:
            c(f"{{ MPI_Request starts[{len(persistent)}];")
            for i, p in enumerate(persistent):
                c(f"  starts[{i}] = req[{p}];")
            c(f"  MPI_Startall({len(persistent)}, starts);")
            for i, p in enumerate(persistent):
                c(f"  req[{p}] = starts[{i}];")
            c("}")
        else:
            for p in persistent:
                c(f"MPI_Start(&req[{p}]);")
        for e in tokens:
            m = e[0]
            c(f"sl[{k}] = token_slot();")
            c(f"MPI_Isend(sl[{k}].buffer, 0, MPI_INT, {m.src}, {m.tag + TOKEN_OFFSET}, "
              f"MPI_COMM_WORLD, &req[{k}]);")
            k += 1
        c("pause_maybe();")
        # 2. sends in this rank's order
        for e in sends:
            m, mode = e[0], e[2]
            args = f"{m.count}, {mpitype(m.ty)}, {m.dst}, {m.tag}, MPI_COMM_WORLD"
            if mode == "Rsend":
                c(f"token_recv({m.dst}, {m.tag + TOKEN_OFFSET});")
                self.rsend(c, m)
                continue
            if mode in ("Send", "Ssend", "Bsend"):
                self.blocking_send(c, m, mode)
                continue
            c(f"sl[{k}] = send_slot({ctype(m.ty)}, {m.count}, {m.dst}, {m.tag});")
            if mode == "persistent":
                c(f"MPI_Send_init(sl[{k}].buffer, {args}, &req[{k}]);")
                c(f"sl[{k}].persistent = 1;")
                c(f"MPI_Start(&req[{k}]);")
            else:
                if mode == "Irsend":
                    c(f"token_recv({m.dst}, {m.tag + TOKEN_OFFSET});")
                if mode == "Ibsend":
                    self.note_bsend(m)
                c(f"MPI_{mode}(sl[{k}].buffer, {args}, &req[{k}]);")
            k += 1
        assert k == slots, (k, slots)
        self.point(r, c)
        # 3. probed receives, in random order
        rng.shuffle(probed)
        for e in probed:
            m, form = e[0], e[1]
            how = self.pick(["Probe", "Mprobe", "Iprobe", "Improbe"])
            if form == "group-probe":
                self.probe_receive(c, "MPI_ANY_SOURCE", m.tag, how)
            else:
                self.probe_receive(c, e[3][0], e[3][1], how)
        if probed:
            self.point(r, c)
        # 4. completion
        if slots:
            self.complete(c, slots)
            c(f"for (int i = 0; i < {slots}; ++i) slot_release(&sl[i], &req[i]);")
        c.close()

    def rsend(self, c, m):
        c.open("{")
        c(f"void *sb = send_payload({ctype(m.ty)}, {m.count}, {m.dst}, {m.tag}, 0);")
        c(f"MPI_Rsend(sb, {m.count}, {mpitype(m.ty)}, {m.dst}, {m.tag}, MPI_COMM_WORLD);")
        c("free(sb);")
        c.close()


class RingStep(Step):
    """Every rank sends to rank + d and receives from rank - d, for several rounds: Sendrecv
    and Sendrecv_replace cannot deadlock, nonblocking and persistent rounds post the receive
    and the send before completing either."""

    kind = "ring"

    def build(self):
        n, rng = self.n, self.rng
        d = rng.randint(1, n - 1)
        rounds = rng.randint(1, 4)
        how = self.pick(["Sendrecv", "Sendrecv_replace", "Isend", "persistent"])
        ty, count = self.random_type(), self.random_count()
        any_source = rng.random() < 0.3 and not self.avoids("anysource")
        self.summary = f"ring (shift {d}, {rounds} rounds, {how}{', ANY_SOURCE' if any_source else ''})"
        if how == "persistent":
            tag = self.new_tag()
            msgs = {r: [self.message(r, (r + d) % n, tag=tag, ty=ty, count=count, round_=i)
                        for i in range(rounds)] for r in range(n)}
        else:
            tags = [self.new_tag() for _ in range(rounds)]
            msgs = {r: [self.message(r, (r + d) % n, tag=tags[i],
                                     ty=ty if how == "Sendrecv_replace" else None,
                                     count=count if how == "Sendrecv_replace" else None)
                        for i in range(rounds)] for r in range(n)}
        for r in range(n):
            c = self.code[r]
            prev = (r - d) % n
            src = "MPI_ANY_SOURCE" if any_source else str(prev)
            if how == "persistent":
                self.persistent_rounds(c, r, msgs[r], msgs[prev], src)
                continue
            for i in range(rounds):
                out, inc = msgs[r][i], msgs[prev][i]
                c.open("{")
                if how == "Isend":
                    c("MPI_Request req[2];", "MPI_Status sts[2];", "struct slot sl[2];")
                    c(f"sl[0] = recv_slot({ctype(inc.ty)}, {inc.count});")
                    c(f"MPI_Irecv(sl[0].buffer, {inc.count}, {mpitype(inc.ty)}, {src}, {inc.tag}, "
                      f"MPI_COMM_WORLD, &req[0]);")
                    c(f"sl[1] = send_slot({ctype(out.ty)}, {out.count}, {out.dst}, {out.tag});")
                    c(f"MPI_Isend(sl[1].buffer, {out.count}, {mpitype(out.ty)}, {out.dst}, {out.tag}, "
                      f"MPI_COMM_WORLD, &req[1]);")
                    if rng.random() < 0.3:
                        self.point(r, c)
                    self.complete(c, 2)
                    c("for (int i = 0; i < 2; ++i) slot_release(&sl[i], &req[i]);")
                else:
                    c("MPI_Status st;")
                    c(f"void *sb = send_payload({ctype(out.ty)}, {out.count}, {out.dst}, {out.tag}, 0);")
                    if how == "Sendrecv_replace":
                        c(f"MPI_Sendrecv_replace(sb, {out.count}, {mpitype(out.ty)}, {out.dst}, "
                          f"{out.tag}, {src}, {inc.tag}, MPI_COMM_WORLD, &st);")
                        c(f"receive_done(sb, {ctype(inc.ty)}, &st);")
                    else:
                        c(f"void *rb = recv_buffer({ctype(inc.ty)}, {inc.count});")
                        c(f"MPI_Sendrecv(sb, {out.count}, {mpitype(out.ty)}, {out.dst}, {out.tag}, "
                          f"rb, {inc.count}, {mpitype(inc.ty)}, {src}, {inc.tag}, MPI_COMM_WORLD, &st);")
                        c(f"receive_done(rb, {ctype(inc.ty)}, &st);")
                        c("free(rb);")
                    c("free(sb);")
                c.close()
                if rng.random() < 0.4:
                    self.point(r, c)

    def persistent_rounds(self, c, r, out_msgs, in_msgs, src):
        out, inc = out_msgs[0], in_msgs[0]
        rng = self.rng
        c.open("{")
        c("MPI_Request req[2];", "MPI_Status sts[2];", "struct slot sl[2];")
        c(f"sl[0] = recv_slot({ctype(inc.ty)}, {inc.count});", "sl[0].persistent = 1;")
        c(f"MPI_Recv_init(sl[0].buffer, {inc.count}, {mpitype(inc.ty)}, {src}, {inc.tag}, "
          f"MPI_COMM_WORLD, &req[0]);")
        c(f"sl[1] = send_slot({ctype(out.ty)}, {out.count}, {out.dst}, {out.tag});",
          "sl[1].persistent = 1;")
        c(f"MPI_Send_init(sl[1].buffer, {out.count}, {mpitype(out.ty)}, {out.dst}, {out.tag}, "
          f"MPI_COMM_WORLD, &req[1]);")
        for i in range(len(out_msgs)):
            c.open("{")
            if i > 0:
                c(f"refill(sl[1].buffer, {ctype(out.ty)}, {out.count}, {out.dst}, {out.tag}, {i});")
                c("sl[0].done = sl[1].done = 0;")
            if rng.random() < 0.5:
                c("MPI_Startall(2, req);")
            else:
                c("MPI_Start(&req[0]);", "MPI_Start(&req[1]);")
            if rng.random() < 0.3:
                self.point(r, c)
            self.complete(c, 2)
            c.close()
        c("for (int i = 0; i < 2; ++i) slot_release(&sl[i], &req[i]);")
        c.close()


class FarmStep(Step):
    """A master hands out tasks to whichever worker asks first (MPI_ANY_SOURCE on a tag of its
    own); a worker's request carries its previous result. Which worker does which task is not
    determined, so workers fold nothing; the master folds the (task, result) pairs, a set that
    is determined. Each worker asks until it gets a stop; the master answers every request, so
    nobody waits forever."""

    kind = "farm"

    def build(self):
        n, rng = self.n, self.rng
        master = rng.randrange(n)
        tasks = rng.randint(n - 1, 5 * (n - 1))
        sizes = [rng.choice([0, rng.randint(1, 50), rng.randint(50, 4000)]) for _ in range(tasks)]
        recv_how = self.pick(["Recv", "Iprobe", "Probe", "Mprobe", "Irecv-Wait", "Irecv-Test"])
        worker_how = self.pick(["Probe", "Recv"])
        request_mode = self.pick(["Send", "Ssend", "Isend"])
        self.summary = f"farm (master {master}, {tasks} tasks, master {recv_how}, workers {worker_how})"
        req_tag, task_tag, stop_tag = (self.special_tag(x) for x in (FARM_REQUEST, FARM_TASK, FARM_STOP))
        self.prog.farm_sizes.append((self.index, sizes))
        sizes_name = f"farm_sizes_{self.index}"
        biggest = max(sizes) + 1
        midway = rng.randint(1, tasks + n - 1)
        # master
        c = self.code[master]
        c.open("{")
        c("int handed = 0, stopped = 0, answered = 0;")
        c(f"farm_begin({tasks});")
        c.open(f"while (stopped < {n - 1}) {{")
        c("long request[2];", "MPI_Status st;")
        if recv_how == "Recv":
            c(f"MPI_Recv(request, 2, MPI_LONG, MPI_ANY_SOURCE, {req_tag}, MPI_COMM_WORLD, &st);")
        elif recv_how == "Iprobe":
            c("int found = 0;")
            c.open("for (;;) {")
            c(f"MPI_Iprobe(MPI_ANY_SOURCE, {req_tag}, MPI_COMM_WORLD, &found, &st);")
            c("if (found) break;")
            self.poll_body(c)
            c.close()
            c(f"MPI_Recv(request, 2, MPI_LONG, st.MPI_SOURCE, {req_tag}, MPI_COMM_WORLD, &st);")
        elif recv_how == "Probe":
            c(f"MPI_Probe(MPI_ANY_SOURCE, {req_tag}, MPI_COMM_WORLD, &st);")
            c(f"MPI_Recv(request, 2, MPI_LONG, st.MPI_SOURCE, {req_tag}, MPI_COMM_WORLD, &st);")
        elif recv_how == "Mprobe":
            c("MPI_Message msg;")
            c(f"MPI_Mprobe(MPI_ANY_SOURCE, {req_tag}, MPI_COMM_WORLD, &msg, &st);")
            c("MPI_Mrecv(request, 2, MPI_LONG, &msg, &st);")
        else:
            c("MPI_Request rr;")
            c(f"MPI_Irecv(request, 2, MPI_LONG, MPI_ANY_SOURCE, {req_tag}, MPI_COMM_WORLD, &rr);")
            if recv_how == "Irecv-Wait":
                c("MPI_Wait(&rr, &st);")
            else:
                c("int done = 0;")
                c.open("for (;;) {")
                c("MPI_Test(&rr, &done, &st);")
                c("if (done) break;")
                self.poll_body(c)
                c.close()
        c(f"farm_result(request, &st, {sizes_name}, {req_tag});")
        c.open(f"if (handed < {tasks}) {{")
        c(f"farm_send_task(st.MPI_SOURCE, handed, {sizes_name}[handed], {task_tag});")
        c("++handed;")
        c.close("} else {")
        c.depth += 1
        c(f"token_send(st.MPI_SOURCE, {stop_tag});")
        c("++stopped;")
        c.close()
        c("++answered;")
        self.points[master].append(1)
        c(f"if (answered == {midway}) checkpoint_point({self.index}, 1);")
        c("pause_maybe();")
        c.close()
        c(f"farm_end({tasks});")
        c.close()
        # workers: one function for all of them
        c = Code(0)
        c.open("{")
        c("long request[2] = {-1, 0};")
        c.open("for (;;) {")
        c("MPI_Status st;", "long *task;", "int n;")
        if request_mode == "Isend":
            c("MPI_Request sr;")
            c(f"MPI_Isend(request, 2, MPI_LONG, {master}, {req_tag}, MPI_COMM_WORLD, &sr);")
            c("MPI_Wait(&sr, MPI_STATUS_IGNORE);")
        else:
            c(f"MPI_{request_mode}(request, 2, MPI_LONG, {master}, {req_tag}, MPI_COMM_WORLD);")
        if worker_how == "Probe":
            c(f"MPI_Probe({master}, MPI_ANY_TAG, MPI_COMM_WORLD, &st);")
            c(f"if (st.MPI_TAG == {stop_tag}) {{ token_recv({master}, {stop_tag}); break; }}")
            c("MPI_Get_count(&st, MPI_LONG, &n);")
            c("task = malloc(sizeof(long) * (size_t)n);")
            c(f"MPI_Recv(task, n, MPI_LONG, {master}, {task_tag}, MPI_COMM_WORLD, &st);")
        else:
            c(f"task = malloc(sizeof(long) * {biggest + 1});  /* one more: never empty */")
            c(f"MPI_Recv(task, {biggest}, MPI_LONG, {master}, MPI_ANY_TAG, MPI_COMM_WORLD, &st);")
            c(f"if (st.MPI_TAG == {stop_tag}) {{ check_token(&st, {master}, {stop_tag}); free(task); break; }}")
            c("MPI_Get_count(&st, MPI_LONG, &n);")
        c(f"farm_work(task, n, &st, {master}, {task_tag}, request);")
        c("free(task);")
        c("pause_maybe();")
        c.close()
        c.close()
        self.functions.append(f"static void farm_worker_{self.index}(void) " + c.lines[0].strip())
        self.functions.extend(c.lines[1:])
        for w in range(n):
            if w != master:
                self.code[w](f"farm_worker_{self.index}();")
                self.point(w, self.code[w])


class GatherStep(Step):
    """A fenced gather: the master receives every worker's messages with MPI_ANY_SOURCE and
    MPI_ANY_TAG. Safe because all messages to the master before this step were received in
    earlier steps, nothing else is sent to it in this step, and the workers wait for the
    master's 'done' before they go on (so nothing from the next step can arrive)."""

    kind = "gather"

    def build(self):
        n, rng = self.n, self.rng
        master = rng.randrange(n)
        how = self.pick(["Probe", "Iprobe", "Mprobe", "Improbe", "Recv", "Irecv"])
        common = self.random_type()
        msgs = []
        for w in range(n):
            if w == master:
                continue
            for _ in range(rng.randint(0, 3)):
                msgs.append(self.message(w, master, ty=common if how in ("Recv", "Irecv") else None))
        if not msgs:
            msgs.append(self.message(self.other(master), master,
                                     ty=common if how in ("Recv", "Irecv") else None))
        self.summary = f"gather (master {master}, {len(msgs)} messages, {how} ANY_SOURCE/ANY_TAG)"
        done = self.special_tag(FENCE_DONE)
        for w in range(n):
            if w == master:
                continue
            c = self.code[w]
            mine = [m for m in msgs if m.src == w]
            rng.shuffle(mine)
            for m in mine:
                self.blocking_send(c, m, self.send_mode(m))
            self.point(w, c)
            c(f"token_recv({master}, {done});")
        c = self.code[master]
        k = len(msgs)
        half = rng.randint(0, k)
        if how in ("Recv", "Irecv"):
            biggest = max(m.count for m in msgs)
            if how == "Recv":
                for i in range(k):
                    self.typed_receive(c, "MPI_ANY_SOURCE", "MPI_ANY_TAG", common, biggest, "Recv")
                    if i + 1 == half:
                        self.point(master, c)
            else:
                c.open("{")
                c(f"MPI_Request req[{k}];", f"MPI_Status sts[{k}];", f"struct slot sl[{k}];")
                for i in range(k):
                    c(f"sl[{i}] = recv_slot({ctype(common)}, {biggest});")
                    c(f"MPI_Irecv(sl[{i}].buffer, {biggest}, {mpitype(common)}, MPI_ANY_SOURCE, "
                      f"MPI_ANY_TAG, MPI_COMM_WORLD, &req[{i}]);")
                self.point(master, c)
                self.complete(c, k)
                c(f"for (int i = 0; i < {k}; ++i) slot_release(&sl[i], &req[i]);")
                c.close()
        else:
            for i in range(k):
                self.probe_receive(c, "MPI_ANY_SOURCE", "MPI_ANY_TAG", how)
                if i + 1 == half:
                    self.point(master, c)
        for w in range(n):
            if w != master:
                c(f"token_send({w}, {done});")


class StreamStep(Step):
    """A stream from one rank to another on one tag: windows of exact nonblocking receives, each
    as large as the window's largest message, for messages of mixed sizes sent in order (c3
    posts such receives' payload receives before their headers once the sender splits every
    message to that receiver). The receiver completes a window in posting order, so messages of
    the one tag are checked in send order; the sender sends one by one, in every blocking mode,
    or a window of nonblocking sends it completes any way. Deadlock-free: a window's receives are
    all posted before any of them is waited for."""

    kind = "stream"

    def stream_count(self):
        return self.count_among((((0, 0), 0.15), ((1, 64), 0.45), ((65, 2048), 0.65),
                                 ((2049, 12000), 1.0)))

    def build(self):
        rng = self.rng
        src, dst = rng.sample(range(self.n), 2)
        tag, ty = self.new_tag(), self.random_type()
        windows = rng.randint(2, 5)
        self.summary = f"stream {src} -> {dst} on one tag, {windows} windows"
        cs, cd = self.code[src], self.code[dst]
        sent = 0
        for _ in range(windows):
            k = rng.randint(1, 5)
            msgs = [self.message(src, dst, tag=tag, ty=ty, count=self.stream_count(),
                                 round_=sent + i) for i in range(k)]
            sent += k
            capacity = max(1, max(m.count for m in msgs))
            blocking_sends = rng.random() < 0.5
            cd.open("{")
            cd(f"MPI_Request req[{k}];", f"MPI_Status sts[{k}];", f"struct slot sl[{k}];")
            self.prog.max_requests = max(self.prog.max_requests, k)
            if rng.random() < 0.3 and not (self.avoids("mprobe") or self.avoids("probe")):
                self.probed_window(cd, src, dst, tag, ty, capacity, k, blocking_sends)
            else:
                for i in range(k):
                    cd(f"sl[{i}] = recv_slot({ctype(ty)}, {capacity});")
                    self.post_receive(cd, i, src, tag, ty, capacity)
                if rng.random() < 0.4:
                    self.point(dst, cd)
                self.complete_window(cd, k)
            cd(f"for (int i = 0; i < {k}; ++i) slot_release(&sl[i], &req[i]);")
            cd.close()
            cs.open("{")
            if blocking_sends:
                for m in msgs:
                    self.blocking_send(cs, m, self.send_mode(m))
            else:
                cs(f"MPI_Request req[{k}];", f"MPI_Status sts[{k}];", f"struct slot sl[{k}];")
                for i, m in enumerate(msgs):
                    mode = self.pick(["Isend", "Isend", "Issend"] +
                                     (["Ibsend"] if self.bsend_ok(m) else []))
                    if mode == "Ibsend":
                        self.note_bsend(m)
                    cs(f"sl[{i}] = send_slot({ctype(ty)}, {m.count}, {dst}, {tag});")
                    cs(f"refill(sl[{i}].buffer, {ctype(ty)}, {m.count}, {dst}, {tag}, {m.round});")
                    cs(f"MPI_{mode}(sl[{i}].buffer, {m.count}, {mpitype(ty)}, {dst}, {tag}, "
                       f"MPI_COMM_WORLD, &req[{i}]);")
                if rng.random() < 0.3:
                    self.point(src, cs)
                self.complete(cs, k)
                cs(f"for (int i = 0; i < {k}; ++i) slot_release(&sl[i], &req[i]);")
            cs.close()

    @staticmethod
    def post_receive(cd, i, src, tag, ty, capacity):
        cd(f"MPI_Irecv(sl[{i}].buffer, {capacity}, {mpitype(ty)}, {src}, {tag}, "
           f"MPI_COMM_WORLD, &req[{i}]);")

    def complete_window(self, cd, k):
        if self.rng.random() < 0.5:
            how = self.pick(["Waitall", "Testall"])
            cd(f"complete({k}, req, sts, sl, DONE_{how.upper()}, {self.poll_flag()});")
        else:  # one by one in posting order: each completes with the next message
            for i in range(k):
                cd(f"MPI_Wait(&req[{i}], &sts[{i}]);", f"slot_done(&sl[{i}], &sts[{i}]);")

    def probed_window(self, cd, src, dst, tag, ty, capacity, k, blocking_sends):
        """A window whose message j is matched by MPI_Mprobe or MPI_Improbe between the
        receives posted for the messages before and after it, and received by MPI_Mrecv either
        at once or, when the sender's sends do not block, after every other receive of the
        window completed (a later message's receive then completes before the probed one's; a
        blocking send of message j would wait for the MPI_Mrecv). Messages are checked in send
        order at the end."""
        rng = self.rng
        j = rng.randrange(k)
        for i in range(k):
            cd(f"sl[{i}] = recv_slot({ctype(ty)}, {capacity});")
        for i in range(j):
            self.post_receive(cd, i, src, tag, ty, capacity)
        if rng.random() < 0.5:
            self.point(dst, cd)
        cd("MPI_Message msg;", f"req[{j}] = MPI_REQUEST_NULL;")
        if rng.random() < 0.5 or self.avoids("polling"):
            cd(f"MPI_Mprobe({src}, {tag}, MPI_COMM_WORLD, &msg, &sts[{j}]);")
        else:
            cd.open("for (int found = 0; !found;) {")
            cd(f"MPI_Improbe({src}, {tag}, MPI_COMM_WORLD, &found, &msg, &sts[{j}]);")
            cd(f"if (!found) poll_pause({self.poll_flag()});")
            cd.close()
        mrecv = f"MPI_Mrecv(sl[{j}].buffer, {capacity}, {mpitype(ty)}, &msg, &sts[{j}]);"
        at_once = blocking_sends or rng.random() < 0.5
        if at_once:
            cd(mrecv)
        for i in range(j + 1, k):
            self.post_receive(cd, i, src, tag, ty, capacity)
        for i in range(k):
            if i != j:
                cd(f"MPI_Wait(&req[{i}], &sts[{i}]);")
        if not at_once:
            cd(mrecv)
        cd(f"for (int i = 0; i < {k}; ++i) slot_done(&sl[i], &sts[i]);")


STEP_CLASSES = {"seq": SeqStep, "nb": NbStep, "ring": RingStep, "farm": FarmStep,
                "gather": GatherStep, "stream": StreamStep}


class Program:
    def __init__(self, seed, ranks, steps=None, kinds=None, avoid=()):
        self.seed, self.ranks = seed, ranks
        self.rng = random.Random(seed * 1000003 + ranks)
        self.avoid = set(avoid)
        self.kinds = kinds or list(KINDS)
        if self.avoid & {"anysource", "anytag"}:
            self.kinds = [k for k in self.kinds if k not in ("farm", "gather")]
            if not self.kinds:
                raise SystemExit("gen_p2p.py: --avoid leaves no step kind")
        self.steps_count = steps or self.rng.randint(10, 24)
        self.bsend_bytes = [0] * ranks
        self.bsend_messages = [0] * ranks
        self.farm_sizes = []
        self.max_requests = 1
        self.flush = self.rng.random() < 0.5
        self.steps = []
        weights = [KIND_WEIGHTS[k] for k in self.kinds]
        for i in range(self.steps_count):
            kind = self.rng.choices(self.kinds, weights)[0]
            step = STEP_CLASSES[kind](self, i)
            step.build()
            self.steps.append(step)
        self.plan = self.checkpoint_plan()

    def checkpoint_plan(self):
        """One or two forced checkpoints per rank at (step, point), different steps for
        different ranks where possible: point 0 (end of the step) or a point inside it."""
        rng = self.rng
        last = self.steps_count - 1
        used = set()
        plan = {}
        for r in range(self.ranks):
            choices = []
            for k in range(1 if rng.random() < 0.5 else 2):
                lo = 0 if k == 0 else choices[0][0] + 1
                if lo > last:
                    break  # the first one is at the last step
                hi = max(lo, last - 1 if last > 1 else last)  # leave steps to commit in
                for _ in range(20):  # a step no other rank checkpoints at, if there is one
                    step = rng.randint(lo, hi)
                    if step not in used:
                        break
                inner = self.steps[step].points[r]
                point = rng.choice(inner) if inner and rng.random() < 0.45 else 0
                choices.append((step, point))
                used.add(step)
            plan[r] = choices
        return plan

    def meta(self):
        return {"seed": self.seed, "ranks": self.ranks, "steps": self.steps_count,
                "forced": {str(r): [list(p) for p in self.plan[r]] for r in range(self.ranks)},
                "kinds": [s.kind for s in self.steps]}

    def emit(self):
        out = []
        w = out.append
        w(f"/* Generated by test/mpi_random/gen_p2p.py --seed {self.seed} --ranks {self.ranks}"
          f"{'' if set(self.kinds) == set(KINDS) else ' --kinds ' + ','.join(self.kinds)}"
          f"{' --avoid ' + ','.join(sorted(self.avoid)) if self.avoid else ''}: "
          f"a deadlock-free MPI point-to-point program whose output does not depend on the order")
        w("   in which messages match. Steps:")
        for s in self.steps:
            w(f"     {s.index:3d} {s.summary}")
        w("   Forced checkpoints (rank: step/point, point 0 = end of step):")
        for r in range(self.ranks):
            w(f"     rank {r}: " + (" ".join(f"{a}/{b}" for a, b in self.plan[r]) or "-"))
        w(f"   @meta {json.dumps(self.meta())} */")
        w(PRELUDE.replace("@RANKS@", str(self.ranks)).replace("@STEPS@", str(self.steps_count))
          .replace("@SEED@", f"0x{(self.seed * 0x9E3779B97F4A7C15 + self.ranks) % (1 << 64):016x}ULL")
          .replace("@MAXEXPECT@", str(max([len(s.expect[r]) for s in self.steps for r in range(self.ranks)] + [1])))
          .replace("@FLUSH@", "1" if self.flush else "0")
          .replace("@C_HELPERS@", C_HELPERS))
        w(f"#define MAX_REQUESTS {self.max_requests}")
        w(HELPERS)
        w("static const long bsend_bytes[NRANKS] = {" + ", ".join(map(str, self.bsend_bytes)) + "};")
        w("static const int bsend_messages[NRANKS] = {" + ", ".join(map(str, self.bsend_messages)) + "};")
        w("static const struct forced_checkpoint forced[NRANKS][2] = {")
        for r in range(self.ranks):
            entries = [f"{{{a}, {b}}}" for a, b in self.plan[r]] + ["{-1, -1}"] * (2 - len(self.plan[r]))
            w("  {" + ", ".join(entries) + "},")
        w("};")
        w(CHECKPOINT_POINT)
        for index, sizes in self.farm_sizes:
            w(f"static const int farm_sizes_{index}[] = {{{', '.join(map(str, sizes))}}};")
        w("")
        for s in self.steps:
            s.emit(out)
        w("static void run_step(int step) {")
        w("  switch (step) {")
        for s in self.steps:
            w(f"  case {s.index}: step_{s.index}(); break;")
        w("  }")
        w("}")
        w("")
        w("static const char *const step_kind[NSTEPS] = {" +
          ", ".join(f'"{s.kind}"' for s in self.steps) + "};")
        w(MAIN)
        return "\n".join(out) + "\n"


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
#define FLUSH_EVERY_LINE @FLUSH@
#define FINAL_TAG 32766
#define HELPER static __attribute__((unused))  /* not every program uses every helper */

enum { T_INT, T_DOUBLE, T_CHAR, T_LONG };
enum { SLOT_RECV, SLOT_SEND, SLOT_TOKEN };

struct expect { int src, tag, type, count, round; };  /* a message this rank receives */
struct slot { void *buffer; int kind, type, count, persistent, done; };
struct forced_checkpoint { int step, point; };

static int rank;
static uint64_t acc;          /* sum of message hashes mod 2^64: independent of arrival order */
static uint64_t step_state;   /* acc when the step began: the state payloads carry */
static long received_messages, received_bytes;
static int current_step;
static const struct expect *expected;
static int expected_count;
static unsigned char seen[MAX_EXPECT];
static int token_buffer;
static int trace;
static uint64_t jitter;       /* 0: no pauses */
static char *bsend_area;
static unsigned char *farm_done;
static int farm_tasks_done;

HELPER void fail(const char *what, int a, int b, int c) {
  fprintf(stderr, "mpi-random: rank %d step %d: %s (%d, %d, %d)\n", rank, current_step, what, a, b, c);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}
@C_HELPERS@

HELPER size_t type_size(int type) {
  switch (type) {
  case T_INT: return sizeof(int);
  case T_DOUBLE: return sizeof(double);
  case T_CHAR: return 1;
  default: return sizeof(long);
  }
}

HELPER MPI_Datatype mpi_type(int type) {
  switch (type) {
  case T_INT: return MPI_INT;
  case T_DOUBLE: return MPI_DOUBLE;
  case T_CHAR: return MPI_CHAR;
  default: return MPI_LONG;
  }
}

HELPER uint64_t message_key(int src, int dst, int tag, int round) {
  return mix64(PROGRAM_SEED ^ mix64(((uint64_t)current_step << 44) ^ ((uint64_t)src << 36) ^
                                    ((uint64_t)dst << 28) ^ ((uint64_t)tag << 8) ^ (uint64_t)round));
}

/* Element i is a function of the key; a long message's element 0 is the sender's state. */
HELPER void fill(void *buffer, int type, int count, uint64_t key, uint64_t state) {
  for (int i = 0; i < count; ++i) {
    uint64_t v = mix64(key + (uint64_t)i);
    switch (type) {
    case T_INT: ((int *)buffer)[i] = (int)(uint32_t)v; break;
    case T_DOUBLE: ((double *)buffer)[i] = (double)(int64_t)(v >> 12) / 1024.0; break;
    case T_CHAR: ((char *)buffer)[i] = (char)(v & 0x7f); break;
    default: ((long *)buffer)[i] = i == 0 ? (long)state : (long)v; break;
    }
  }
}

HELPER void *allocate(int type, int count) {
  size_t bytes = type_size(type) * (size_t)count;
  void *p = malloc(bytes ? bytes : 1);
  if (!p) fail("out of memory", count, type, 0);
  return p;
}

HELPER void *send_payload(int type, int count, int dst, int tag, int round) {
  void *p = allocate(type, count);
  fill(p, type, count, message_key(rank, dst, tag, round), step_state);
  return p;
}

HELPER void refill(void *buffer, int type, int count, int dst, int tag, int round) {
  fill(buffer, type, count, message_key(rank, dst, tag, round), step_state);
}

HELPER void *recv_buffer(int type, int count) {
  void *p = allocate(type, count);
  memset(p, 0xa5, type_size(type) * (size_t)count);
  return p;
}

HELPER struct slot recv_slot(int type, int count) {
  struct slot s = {recv_buffer(type, count), SLOT_RECV, type, count, 0, 0};
  return s;
}

HELPER struct slot send_slot(int type, int count, int dst, int tag) {
  struct slot s = {send_payload(type, count, dst, tag, 0), SLOT_SEND, type, count, 0, 0};
  return s;
}

HELPER struct slot token_slot(void) {
  struct slot s = {&token_buffer, SLOT_TOKEN, T_INT, 0, 0, 0};
  return s;
}

HELPER int find_expected(int src, int tag) {
  for (int i = 0; i < expected_count; ++i)
    if (!seen[i] && expected[i].src == src && expected[i].tag == tag) return i;
  return -1;
}

HELPER int expected_type(const MPI_Status *status) {
  int i = find_expected(status->MPI_SOURCE, status->MPI_TAG);
  if (i < 0) fail("probe found an unexpected message (source, tag)", status->MPI_SOURCE, status->MPI_TAG, 0);
  return expected[i].type;
}

/* Checks a received message against the expected set and folds it into acc. */
HELPER void receive_done(const void *buffer, int type, const MPI_Status *status) {
  int src = status->MPI_SOURCE, tag = status->MPI_TAG, count = -1;
  MPI_Get_count(status, mpi_type(type), &count);
  int i = find_expected(src, tag);
  if (i < 0) fail("unexpected message (source, tag, count)", src, tag, count);
  const struct expect *e = &expected[i];
  if (e->type != type) fail("message of another type (source, tag, type)", src, tag, e->type);
  if (count != e->count) fail("wrong element count (source, tag, count)", src, tag, count);
  uint64_t key = message_key(src, rank, tag, e->round);
  void *reference = allocate(type, count);
  fill(reference, type, count, key, 0);
  size_t size = type_size(type);
  int first = type == T_LONG ? 1 : 0;
  for (int k = first; k < count; ++k)
    if (memcmp((const char *)buffer + k * size, (const char *)reference + k * size, size) != 0)
      fail("corrupt payload (source, tag, element)", src, tag, k);
  free(reference);
  uint64_t h = mix64(key ^ ((uint64_t)count << 3) ^ (uint64_t)type);
  if (type == T_LONG && count > 0) h = mix64(h ^ (uint64_t)((const long *)buffer)[0]);
  acc += h;
  seen[i] = 1;
  ++received_messages;
  received_bytes += (long)(size * (size_t)count);
  if (trace) fprintf(stderr, "trace: rank %d step %d got source %d tag %d count %d\n", rank, current_step, src, tag, count);
}

HELPER void begin_step(int step, const struct expect *table, int n) {
  current_step = step;
  expected = table;
  expected_count = n;
  memset(seen, 0, sizeof seen);
  step_state = acc;
}

HELPER void end_step(void) {
  for (int i = 0; i < expected_count; ++i)
    if (!seen[i]) fail("message never received (source, tag, count)", expected[i].src, expected[i].tag, expected[i].count);
}

HELPER void slot_done(struct slot *s, const MPI_Status *status) {
  if (s->done) fail("request completed twice", s->kind, s->count, 0);
  s->done = 1;
  if (s->kind == SLOT_RECV) receive_done(s->buffer, s->type, status);
}

HELPER void slot_release(struct slot *s, MPI_Request *request) {
  if (!s->done) fail("request never completed", s->kind, s->count, 0);
  if (s->persistent) MPI_Request_free(request);
  if (s->kind != SLOT_TOKEN) free(s->buffer);
}

HELPER void check_token(const MPI_Status *status, int src, int tag) {
  int count = -1;
  MPI_Get_count(status, MPI_INT, &count);
  if (status->MPI_SOURCE != src || status->MPI_TAG != tag || count != 0)
    fail("bad token (source, tag, count)", status->MPI_SOURCE, status->MPI_TAG, count);
}

HELPER void token_send(int dst, int tag) {
  MPI_Send(&token_buffer, 0, MPI_INT, dst, tag, MPI_COMM_WORLD);
}

HELPER void token_recv(int src, int tag) {
  MPI_Status status;
  int dummy;
  MPI_Recv(&dummy, 1, MPI_INT, src, tag, MPI_COMM_WORLD, &status);
  check_token(&status, src, tag);
}

/* A receive nothing matches (its tag is never sent): cancelled, which must succeed. */
HELPER void cancel_never(MPI_Request *request) {
  MPI_Status status;
  int cancelled = 0;
  MPI_Cancel(request);
  MPI_Wait(request, &status);
  MPI_Test_cancelled(&status, &cancelled);
  if (!cancelled) fail("a receive nothing matches was not cancelled", status.MPI_SOURCE, status.MPI_TAG, 0);
  acc += 0x5bd1e995u;
}

/* --- task farm: a task message is {task, data[0..size)}, a request {task done or -1, result} --- */
HELPER void task_data(long *data, int size, int task) {
  uint64_t key = message_key(-1, -1, -1, task);
  for (int i = 0; i < size; ++i) data[i] = (long)mix64(key + (uint64_t)i);
}

HELPER long task_result(const long *data, int size) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (int i = 0; i < size; ++i) h = mix64(h ^ (uint64_t)data[i]);
  return (long)h;
}

HELPER void farm_begin(int tasks) {
  farm_done = calloc((size_t)tasks, 1);
  farm_tasks_done = 0;
}

HELPER void farm_send_task(int worker, int task, int size, int tag) {
  long *message = allocate(T_LONG, size + 1);
  message[0] = task;
  task_data(message + 1, size, task);
  MPI_Send(message, size + 1, MPI_LONG, worker, tag, MPI_COMM_WORLD);
  free(message);
}

/* Worker side: checks the task's data and computes the result it sends with its next request. */
HELPER void farm_work(const long *task, int n, const MPI_Status *status, int master, int tag, long request[2]) {
  if (status->MPI_SOURCE != master || status->MPI_TAG != tag || n < 1)
    fail("bad task message (source, tag, count)", status->MPI_SOURCE, status->MPI_TAG, n);
  long *reference = allocate(T_LONG, n - 1);
  task_data(reference, n - 1, (int)task[0]);
  if (memcmp(reference, task + 1, sizeof(long) * (size_t)(n - 1)) != 0)
    fail("corrupt task data (task, count, 0)", (int)task[0], n, 0);
  free(reference);
  request[0] = task[0];
  request[1] = task_result(task + 1, n - 1);
}

/* Master side: folds the result a request carries. */
HELPER void farm_result(const long request[2], const MPI_Status *status, const int *sizes, int tag) {
  int count = -1;
  MPI_Get_count(status, MPI_LONG, &count);
  if (status->MPI_TAG != tag || count != 2) fail("bad farm request (source, tag, count)", status->MPI_SOURCE, status->MPI_TAG, count);
  if (request[0] < 0) return;
  int task = (int)request[0];
  if (farm_done[task]) fail("task done twice (task, worker, 0)", task, status->MPI_SOURCE, 0);
  int size = sizes[task];
  long *data = allocate(T_LONG, size);
  task_data(data, size, task);
  long expected_result = task_result(data, size);
  free(data);
  if (request[1] != expected_result) fail("wrong task result (task, worker, 0)", task, status->MPI_SOURCE, 0);
  farm_done[task] = 1;
  ++farm_tasks_done;
  acc += mix64((uint64_t)request[1] ^ ((uint64_t)task << 32));
  if (trace) fprintf(stderr, "trace: rank %d step %d task %d done by %d\n", rank, current_step, task, status->MPI_SOURCE);
}

HELPER void farm_end(int tasks) {
  if (farm_tasks_done != tasks) fail("tasks left undone (done, tasks, 0)", farm_tasks_done, tasks, 0);
  free(farm_done);
  farm_done = NULL;
}
"""

HELPERS = r"""
enum { SEND_SEND, SEND_SSEND, SEND_BSEND, SEND_ISEND, SEND_ISSEND, SEND_IBSEND };
enum { RECV_RECV, RECV_IRECV_WAIT, RECV_IRECV_TEST, RECV_PROBE, RECV_MPROBE, RECV_IPROBE, RECV_IMPROBE };
enum { DONE_WAITALL, DONE_WAITANY, DONE_WAITSOME, DONE_TESTALL, DONE_TESTANY, DONE_TESTSOME, DONE_TEST };

/* Sends one message; returns when its buffer may be reused. */
HELPER void send_one(int type, int count, int dst, int tag, int mode, int round) {
  void *buffer = send_payload(type, count, dst, tag, round);
  MPI_Datatype t = mpi_type(type);
  MPI_Request request;
  switch (mode) {
  case SEND_SEND: MPI_Send(buffer, count, t, dst, tag, MPI_COMM_WORLD); break;
  case SEND_SSEND: MPI_Ssend(buffer, count, t, dst, tag, MPI_COMM_WORLD); break;
  case SEND_BSEND: MPI_Bsend(buffer, count, t, dst, tag, MPI_COMM_WORLD); break;
  case SEND_ISEND: MPI_Isend(buffer, count, t, dst, tag, MPI_COMM_WORLD, &request); break;
  case SEND_ISSEND: MPI_Issend(buffer, count, t, dst, tag, MPI_COMM_WORLD, &request); break;
  default: MPI_Ibsend(buffer, count, t, dst, tag, MPI_COMM_WORLD, &request); break;
  }
  if (mode >= SEND_ISEND) MPI_Wait(&request, MPI_STATUS_IGNORE);
  free(buffer);
}

/* Receives one message from src with tag (either may be a wildcard). The RECV_*PROBE ways
 * find it first and take type and size from the expected messages; the others receive
 * `count` elements of `type`. */
HELPER void recv_one(int type, int count, int src, int tag, int how, int site) {
  MPI_Status status;
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Request request;
  int flag = 0;
  void *buffer;
  switch (how) {
  case RECV_RECV:
  case RECV_IRECV_WAIT:
  case RECV_IRECV_TEST:
    buffer = recv_buffer(type, count);
    if (how == RECV_RECV) {
      MPI_Recv(buffer, count, mpi_type(type), src, tag, MPI_COMM_WORLD, &status);
    } else {
      MPI_Irecv(buffer, count, mpi_type(type), src, tag, MPI_COMM_WORLD, &request);
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
    receive_done(buffer, type, &status);
    free(buffer);
    return;
  case RECV_PROBE:
    MPI_Probe(src, tag, MPI_COMM_WORLD, &status);
    break;
  case RECV_MPROBE:
    MPI_Mprobe(src, tag, MPI_COMM_WORLD, &message, &status);
    break;
  case RECV_IPROBE:
    for (;;) {
      MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &status);
      if (flag) break;
      poll_pause(site);
    }
    break;
  default:
    for (;;) {
      MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, &message, &status);
      if (flag) break;
      poll_pause(site);
    }
    break;
  }
  type = expected_type(&status);
  MPI_Get_count(&status, mpi_type(type), &count);
  buffer = recv_buffer(type, count);
  if (how == RECV_MPROBE || how == RECV_IMPROBE)
    MPI_Mrecv(buffer, count, mpi_type(type), &message, &status);
  else
    MPI_Recv(buffer, count, mpi_type(type), status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, &status);
  receive_done(buffer, type, &status);
  free(buffer);
}

/* Completes the n active requests req[] (what each one is: sl[]) in the way `how` says. */
HELPER void complete(int n, MPI_Request *req, MPI_Status *sts, struct slot *sl, int how, int site) {
  int left = n, flag = 0, idx = 0, outcount = 0, indices[MAX_REQUESTS];
  switch (how) {
  case DONE_WAITALL:
    MPI_Waitall(n, req, sts);
    for (int i = 0; i < n; ++i) slot_done(&sl[i], &sts[i]);
    break;
  case DONE_WAITANY:
    for (; left > 0; --left) {
      MPI_Waitany(n, req, &idx, &sts[0]);
      if (idx == MPI_UNDEFINED) fail("MPI_Waitany: no active request left", left, n, 0);
      slot_done(&sl[idx], &sts[0]);
    }
    break;
  case DONE_WAITSOME:
    while (left > 0) {
      MPI_Waitsome(n, req, &outcount, indices, sts);
      if (outcount == MPI_UNDEFINED) fail("MPI_Waitsome: no active request left", left, n, 0);
      for (int k = 0; k < outcount; ++k) slot_done(&sl[indices[k]], &sts[k]);
      left -= outcount;
    }
    break;
  case DONE_TESTALL:
    for (;;) {
      MPI_Testall(n, req, &flag, sts);
      if (flag) break;
      poll_pause(site);
    }
    for (int i = 0; i < n; ++i) slot_done(&sl[i], &sts[i]);
    break;
  case DONE_TESTANY:
    while (left > 0) {
      MPI_Testany(n, req, &idx, &flag, &sts[0]);
      if (flag && idx == MPI_UNDEFINED) fail("MPI_Testany: no active request left", left, n, 0);
      if (flag) {
        slot_done(&sl[idx], &sts[0]);
        --left;
      } else {
        poll_pause(site);
      }
    }
    break;
  case DONE_TESTSOME:
    while (left > 0) {
      MPI_Testsome(n, req, &outcount, indices, sts);
      if (outcount == MPI_UNDEFINED) fail("MPI_Testsome: no active request left", left, n, 0);
      for (int k = 0; k < outcount; ++k) slot_done(&sl[indices[k]], &sts[k]);
      left -= outcount;
      if (outcount == 0) poll_pause(site);
    }
    break;
  default: /* MPI_Test on each request not done yet */
    while (left > 0) {
      for (int i = 0; i < n; ++i) {
        if (sl[i].done) continue;
        MPI_Test(&req[i], &flag, &sts[i]);
        if (flag) {
          slot_done(&sl[i], &sts[i]);
          --left;
        }
      }
      if (left > 0) poll_pause(site);
    }
    break;
  }
}
"""

CHECKPOINT_POINT = r"""
/* Rank r takes its forced checkpoints at forced[r]: (step, point), point 0 = end of step. */
static void checkpoint_point(int step, int point) {
  for (int k = 0; k < 2; ++k) {
    if (forced[rank][k].step == step && forced[rank][k].point == point) {
#pragma ccc_checkpoint force
    }
  }
}
"""

MAIN = r"""
static void setup(void) {
  const char *j = getenv("MPI_RANDOM_JITTER");
  const char *t = getenv("MPI_RANDOM_TRACE");
  trace = t && *t && *t != '0';
  if (j && *j) jitter = mix64(strtoull(j, NULL, 10) * 1000 + (uint64_t)rank) | 1;
  if (bsend_messages[rank] > 0) {
    int size = (int)bsend_bytes[rank] + bsend_messages[rank] * MPI_BSEND_OVERHEAD;
    bsend_area = malloc((size_t)size);
    MPI_Buffer_attach(bsend_area, size);
  }
}

/* Every rank's checksum goes to rank 0, which prints them all. */
static void finish(void) {
  long mine[3] = {(long)acc, received_messages, received_bytes};
  if (bsend_area) {
    void *area;
    int size;
    MPI_Buffer_detach(&area, &size);
    if (area != bsend_area) fail("MPI_Buffer_detach returned another buffer", size, 0, 0);
    free(bsend_area);
    bsend_area = NULL;
  }
  if (rank != 0) {
    MPI_Send(mine, 3, MPI_LONG, 0, FINAL_TAG, MPI_COMM_WORLD);
    return;
  }
  uint64_t all = 0;
  for (int r = 0; r < NRANKS; ++r) {
    long theirs[3];
    if (r == 0) {
      memcpy(theirs, mine, sizeof mine);
    } else {
      MPI_Status status;
      int count = -1;
      MPI_Recv(theirs, 3, MPI_LONG, r, FINAL_TAG, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_LONG, &count);
      if (count != 3) fail("bad final message (source, count, 0)", r, count, 0);
    }
    printf("rank %d: checksum %016llx, %ld messages, %ld bytes\n", r,
           (unsigned long long)theirs[0], theirs[1], theirs[2]);
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
  if (rank == 0) printf("mpi-random: %d ranks, %d steps\n", NRANKS, NSTEPS);
  for (int step = 0; step < NSTEPS; ++step) {
    run_step(step);
    checkpoint_point(step, 0);
#pragma ccc_checkpoint
    if (rank == 0) {
      printf("step %3d %-6s acc %016llx received %ld messages, %ld bytes\n", step, step_kind[step],
             (unsigned long long)acc, received_messages, received_bytes);
      if (FLUSH_EVERY_LINE) fflush(stdout);
    }
  }
  finish();
  MPI_Finalize();
  return 0;
}
"""


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--ranks", type=int, required=True, choices=[2, 3, 4])
    parser.add_argument("--steps", type=int, help=f"number of steps (default: 10..24, at most {MAX_STEPS})")
    parser.add_argument("--kinds", help="comma-separated subset of: " + ", ".join(KINDS))
    parser.add_argument("--avoid", help="comma-separated features to leave out: " +
                        "; ".join(f"{k} ({v})" for k, v in FEATURES.items()))
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
        parser.error(f"unknown feature(s) {', '.join(unknown)}; choose from {', '.join(FEATURES)}")
    if args.steps is not None and not 1 <= args.steps <= MAX_STEPS:
        parser.error(f"--steps must be 1..{MAX_STEPS}")
    program = Program(args.seed, args.ranks, args.steps, kinds, avoid)
    text = json.dumps(program.meta()) + "\n" if args.describe else program.emit()
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
