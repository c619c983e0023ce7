#!/bin/bash
# `c3 run` end to end: jobs killed from outside at random moments (a sequential program and one
# rank of an MPI job), relaunched by c3 run until they finish; stdout over all attempts and the
# files the programs write must equal an uninterrupted plain build's. Then the refusals: a
# directory holding an earlier run's checkpoints, a command that is no c3 program, a job that
# keeps failing, and a program's own exit status.
#
#   c3_run_test.sh <c3> <c3cc> <source dir of the e2e programs> <work dir>
set -u
C3=$1 C3CC=$2 PROGRAMS=$3 WORK=$4
HERE=$(cd "$(dirname "$0")" && pwd)
unset C3_RESTART C3_FAULT C3_INTERVAL C3_KEEP C3_VERBOSE C3_CKPT_DIR
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
seed=${C3_RUN_TEST_SEED:-$(date +%s%N | tail -c 6)}
seed=$((10#$seed))
RANDOM=$seed
echo "seed $seed"

# kill_randomly <pattern> <kills> <min ms> <max ms>: while c3 run works, SIGKILLs one process
# whose command line matches <pattern> (a random one of them), <kills> times.
kill_randomly() {
  local pattern=$1 kills=$2 lo=$3 hi=$4 k pids victim
  for ((k = 0; k < kills; k++)); do
    sleep "0.$(printf %03d $((lo + RANDOM % (hi - lo))))"
    mapfile -t pids < <(pgrep -f -- "$pattern")
    ((${#pids[@]})) || return 0
    victim=${pids[RANDOM % ${#pids[@]}]}
    kill -9 "$victim" 2> /dev/null && echo "killed $victim"
  done
}

# --- a sequential program: heat diffusion with VLAs and a log file ----------------------------
mkdir seq ref && cd ref || exit 1
mpicc -O2 -o heatvla "$PROGRAMS/heatvla.c" 2> /dev/null || { echo "reference build failed"; exit 1; }
./heatvla 300 300 120 > expected
cd ../seq || exit 1
"$C3CC" -O2 -o heatvla "$PROGRAMS/heatvla.c" || { echo "c3cc failed"; exit 1; }
kill_randomly "^\./heatvla" 4 100 700 > kills &
"$C3" run --max-restarts 20 -- ./heatvla 300 300 120 > out 2> err
rc=$?
wait
[ "$rc" = 0 ] || fail "sequential: c3 run exited $rc"
cmp -s out ../ref/expected || { fail "sequential: stdout differs from the reference"; diff ../ref/expected out | head -5; }
cmp -s residuals.txt ../ref/residuals.txt || fail "sequential: residuals.txt differs from the reference"
grep -qE '^c3 run: finished after [0-9]+ attempts?' err || { fail "sequential: no summary"; tail -3 err; }
echo "sequential: $(wc -l < kills) kills; $(tail -n 1 err)"
cd .. || exit 1

# --- an MPI job: one rank killed at random, several times ---------------------------------------
mkdir mpi mpiref && cd mpiref || exit 1
mpicc -O2 -Wno-unknown-pragmas -o ringlog "$HERE/ringlog.c" || { echo "reference build failed"; exit 1; }
mpiexec -n 3 ./ringlog > expected || { echo "reference run failed"; exit 1; }
cd ../mpi || exit 1
"$C3CC" -O2 -o ringlog "$HERE/ringlog.c" || { echo "c3cc failed"; exit 1; }
kill_randomly "^\./ringlog" 3 200 800 > kills &
timeout 300 "$C3" run --max-restarts 20 -- mpiexec -n 3 ./ringlog > out 2> err
rc=$?
wait
[ "$rc" = 0 ] || { fail "MPI: c3 run exited $rc"; tail -5 err; }
cmp -s out ../mpiref/expected || { fail "MPI: stdout differs from the reference"; diff ../mpiref/expected out | head -8; }
for r in 0 1 2; do
  cmp -s ring.$r.txt ../mpiref/ring.$r.txt || fail "MPI: ring.$r.txt differs from the reference"
done
if [ "$(wc -l < kills)" -gt 0 ]; then
  grep -q 'BAD TERMINATION' err || fail "MPI: hydra's report of the killed rank is not on stderr"
fi
echo "MPI: $(wc -l < kills) kills; $(tail -n 1 err)"
cd .. || exit 1

# --- refusals and statuses ------------------------------------------------------------------------
cd seq || exit 1
"$C3" run -- ./heatvla 12 16 2 > /dev/null 2> err.again
[ $? = 2 ] || fail "an earlier run's checkpoints: expected exit 2"
grep -q "^c3 run: error: ./c3-ckpt already holds checkpoints .* --resume$" err.again ||
  { fail "an earlier run's checkpoints: message"; cat err.again; }
rm -rf c3-ckpt
"$C3" run -- sh -c 'exit 3' > /dev/null 2> err.plain
[ $? = 3 ] || fail "not a c3 program: the command's status"
grep -q "^c3 run: the command started no program built with c3cc after 1 attempt, exit status 3$" err.plain ||
  { fail "not a c3 program: message"; cat err.plain; }
C3_FAULT=site:2 "$C3" run --max-restarts 2 -- ./heatvla 12 16 4 > /dev/null 2> err.fault
rc=$?
[ "$rc" = 137 ] || fail "a job that keeps failing: exit $rc, expected 137"
grep -q "^c3 run: gave up (--max-restarts 2) after 3 attempts (restarted from checkpoint 1, checkpoint 2; .* s lost), exit status 137$" err.fault ||
  { fail "a job that keeps failing: summary"; tail -2 err.fault; }
rm -rf c3-ckpt
cat > exit5.c << 'EOS'
#include <stdio.h>
int main(void) { for (int i = 0; i < 3; ++i) { printf("%d\n", i);
#pragma ccc_checkpoint force
} return 5; }
EOS
"$C3CC" -O2 -o exit5 exit5.c && "$C3" run -- ./exit5 > out5 2> err5
[ $? = 5 ] || fail "the program's exit status 5 is c3 run's"
grep -q "^c3 run: finished after 1 attempt, exit status 5$" err5 || { fail "exit 5: summary"; cat err5; }
[ "$(cat out5)" = "$(printf '0\n1\n2')" ] || fail "exit 5: output"
"$C3" run --max-restarts x -- ./exit5 > /dev/null 2>&1
[ $? = 2 ] || fail "--max-restarts x: expected a usage error"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s) (seed $seed; work dir $WORK)"
  exit 1
fi
echo "c3 run: ok"
