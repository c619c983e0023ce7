#!/usr/bin/env bash
# Output commit: a run killed between checkpoints must not have shown output that its restart
# prints again, nor lose output when killed between a commit and the release of its output. Checks separate output files, a pipe, and `>>` on one file, and that
# C3_OUTPUT=immediate (no holding back) does duplicate, so the check can fail.
set -euo pipefail
c3cc=$1
src=$(dirname "$0")/chatty.c
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$c3cc" -O2 "$src" -o chatty
export C3_CKPT_DIR=$work/ckpt
fail() { echo "FAIL: $*"; exit 1; }
killed() { "$@" 2>/dev/null || [ $? -eq 137 ] || fail "expected SIGKILL from: $*"; }

./chatty > reference.txt 2>/dev/null
rm -rf ckpt

# site:3 kills at the third pragma visit: 10 steps after checkpoint 2, with output flushed.
killed env C3_FAULT=site:3 ./chatty > first.txt
C3_RESTART=latest ./chatty > second.txt 2>/dev/null
cat first.txt second.txt | cmp -s - reference.txt || fail "separate files differ from the reference"
[ -s first.txt ] || fail "the killed run showed no output at all"
rm -rf ckpt

{ killed env C3_FAULT=site:3 ./chatty; C3_RESTART=latest ./chatty 2>/dev/null; } | cmp -s - reference.txt ||
  fail "a pipe differs from the reference"
rm -rf ckpt

killed env C3_FAULT=site:3 ./chatty > same.txt
C3_RESTART=latest ./chatty >> same.txt 2>/dev/null
cmp -s same.txt reference.txt || fail ">> into one file differs from the reference"
rm -rf ckpt

# Killed after checkpoint 2 committed but before its held-back output was released: the restart
# shows that output (it is stored in the checkpoint), once, in every harness.
killed env C3_FAULT=before-release:2 ./chatty > first.txt
C3_RESTART=latest ./chatty > second.txt 2>/dev/null
cat first.txt second.txt | cmp -s - reference.txt || fail "before-release: separate files differ"
rm -rf ckpt
killed env C3_FAULT=before-release:2 ./chatty > same.txt
C3_RESTART=latest ./chatty >> same.txt 2>/dev/null
cmp -s same.txt reference.txt || fail "before-release: >> into one file differs"
rm -rf ckpt

killed env C3_OUTPUT=immediate C3_FAULT=site:3 ./chatty > first.txt
C3_OUTPUT=immediate C3_RESTART=latest ./chatty > second.txt 2>/dev/null
if cat first.txt second.txt | cmp -s - reference.txt; then
  fail "C3_OUTPUT=immediate should have printed the steps after checkpoint 2 twice"
fi
echo "output commit: ok"
