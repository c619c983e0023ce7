#!/usr/bin/env bash
# A program c3 cannot checkpoint as written must say so clearly.
# usage: run_refusal.sh <work dir> <program.c> <nprocs> <mpiexec> <c3cc> <expected exit: 0|nonzero>
#                       <stdout regex or -> <stderr regex> [program arguments...]
set -uo pipefail
work=$1 source=$2 nprocs=$3 mpiexec=$4 c3cc=$5 expect_exit=$6 out_re=$7 err_re=$8
shift 8
name=$(basename "$source" .c)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL [$name]: $*" >&2; exit 1; }
"$c3cc" -O2 "$source" -o prog 2>build.err || { cat build.err >&2; fail "c3cc build"; }
status=0
C3_CKPT_DIR=$work/ckpt timeout 60 "$mpiexec" -n "$nprocs" ./prog "$@" >out 2>err || status=$?
((status != 124)) || fail "hung (killed after 60 s)"
if [[ $expect_exit == 0 ]]; then
  ((status == 0)) || { cat err >&2; fail "exit status $status, expected 0"; }
else
  ((status != 0)) || fail "exit status 0, expected an error"
fi
[[ $out_re == - ]] || grep -qE -- "$out_re" out || { cat out >&2; fail "stdout lacks /$out_re/"; }
grep -qE -- "$err_re" err || { cat err >&2; fail "stderr lacks /$err_re/"; }
echo "[$name] exit $status; stderr has /$err_re/"
