#!/bin/bash
# An autoconf configure script run with CC=c3cc finds what it finds with CC=mpicc: its function
# probes declare `char strdup ();` and call it without arguments, which c3's renaming of the
# malloc family and of the calls that open files must leave valid.
#
#   configure_test.sh <c3cc> <configure.ac> <work dir>
set -u
C3CC=$1 INPUT=$2 WORK=$3
command -v autoconf > /dev/null || { echo "SKIP: autoconf not installed"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
cp "$INPUT" configure.ac && autoconf || { echo "FAIL: autoconf"; exit 1; }
answers() { grep -E '^checking for [a-z_0-9]+\.\.\. ' "$1" | grep -v '^checking for gcc'; }
CC=mpicc ./configure > mpicc.log 2>&1 || { echo "FAIL: configure with mpicc"; exit 1; }
CC="$C3CC" ./configure > c3cc.log 2>&1 || { echo "FAIL: configure with c3cc"; tail -20 config.log; exit 1; }
if ! diff <(answers mpicc.log) <(answers c3cc.log); then
  echo "FAIL: configure found other answers with c3cc (< mpicc, > c3cc)"
  exit 1
fi
[ "$(answers c3cc.log | grep -c '\.\.\. yes$')" -ge 20 ] || { echo "FAIL: too few functions found"; exit 1; }
echo "configure: $(answers c3cc.log | wc -l) probes answered as with mpicc"
