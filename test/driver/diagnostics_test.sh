#!/bin/bash
# Diagnostics of a c3cc build are about the user's code: the warnings and errors clang-14 prints
# for the source, byte for byte (file, line, column, the source line with its macros, carets,
# fix-its), in a file whose functions c3 rewrites. The one difference: c3cc knows
# #pragma ccc_checkpoint, so -Wunknown-pragmas does not flag it.
#
#   diagnostics_test.sh <c3cc> <work dir>
set -u
C3CC=$1 WORK=$2
CLANG=${C3_TEST_CLANG:-clang-14}
command -v "$CLANG" > /dev/null || { echo "SKIP: $CLANG not installed"; exit 77; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

cat > warn.c << 'EOF_C'
#include <stdio.h>
#define TWICE(x) ((x) + (x))
struct node { struct node *parent; int v; };
static int depth(struct node *pp, unsigned limit) {
  int unused_local;
  int d = 0;
  while (pp->parent) { pp = pp->parent; d++; }
#pragma ccc_checkpoint
  if (d = limit) printf("%d\n", TWICE(pp->v));
  printf("%s\n", d);
  return d;
}
int main(void) {
  struct node a = {0, 2}, b = {&a, 3};
  return depth(&b, 4) - 1;
}
EOF_C
"$CLANG" -Wall -Wextra -c warn.c -o clang.o 2> clang.err
"$C3CC" -Wall -Wextra -c warn.c -o c3.o 2> c3cc.err || fail "c3cc failed on a file with warnings"
# clang's unknown-pragma warning (three lines) and its count go; the rest must be identical.
grep -q 'unknown pragma ignored' clang.err || fail "clang-14 did not flag the pragma (test premise)"
awk '/unknown pragma ignored/ { skip = 3 } skip { skip--; next } /warnings? generated/ { next } { print }' clang.err > expected
grep -v 'warnings\? generated' c3cc.err > got
if ! cmp -s expected got; then
  fail "c3cc's warnings differ from clang-14's (< clang, > c3cc)"
  diff expected got | head -20
fi
[ -s got ] || fail "no warnings at all (test premise)"
grep -q '__c3' c3cc.err && fail "a diagnostic quotes rewritten code"

# An error: clang's message, and no object.
printf 'int main(void) {\n  int x = ;\n#pragma ccc_checkpoint\n  return 0;\n}\n' > bad.c
"$CLANG" -c bad.c -o bad.o 2> clang.bad
"$C3CC" -c bad.c -o bad.o 2> c3cc.bad
[ $? = 1 ] || fail "an error in the source: exit status 1 expected"
grep -v 'unknown pragma' clang.bad | grep -v '^#pragma\|^        \^$' > expected.bad
cmp -s <(head -3 expected.bad) <(head -3 c3cc.bad) || { fail "error message differs"; cat c3cc.bad; }
[ -e bad.o ] && fail "no object after an error"

# -Werror makes the warnings errors, as with clang.
"$C3CC" -Wall -Werror -c warn.c -o werror.o 2> /dev/null && fail "-Werror: c3cc succeeded"

if [ "$failures" -ne 0 ]; then exit 1; fi
echo "diagnostics: ok"
