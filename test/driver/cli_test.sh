#!/usr/bin/env bash
# Driver tests that need no real precompiler: c3cc's command line, the commands it plans (-show),
# and the pipeline run against a private install layout with a stand-in precompiler that copies
# its input (so these tests check the driver, not the precompiler).
#   usage: cli_test.sh <case> <c3cc executable> <repository root>
set -euo pipefail

case_name=$1
c3cc=$2
repo=$3

work=$(mktemp -d "${TMPDIR:-/tmp}/c3cc-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
  echo "FAIL ($case_name): $*" >&2
  for f in out err; do [[ -f $f ]] && { echo "--- $f:" >&2; cat "$f" >&2; }; done
  exit 1
}

# run <command...>: records stdout in ./out, stderr in ./err, the exit status in $status.
run() {
  status=0
  "$@" > out 2> err || status=$?
}
expect_status() { [[ $status == "$1" ]] || fail "expected exit status $1, got $status"; }
expect_in() { grep -qF -- "$2" "$1" || fail "expected '$2' in $1"; }
expect_not_in() { ! grep -qF -- "$2" "$1" || fail "did not expect '$2' in $1"; }
expect_line() { grep -qxF -- "$2" "$1" || fail "expected the line '$2' in $1"; }

write_program() {
  cat > main.c <<'C'
#include <stdio.h>
int twice(int x);
int main(void) {
  int total = 0;
  for (int i = 0; i < 4; ++i) {
#pragma ccc_checkpoint
    total += twice(i);
  }
  printf("total %d\n", total);
  return 0;
}
C
  echo 'int twice(int x) { return 2 * x; }' > util.c
}

# A private prefix: a copy of c3cc, a stand-in precompiler, empty runtime archives, headers.
# c3cc finds everything relative to its own executable, so this is a complete layout.
make_layout() {
  mkdir -p prefix/bin prefix/lib prefix/include
  cp "$c3cc" prefix/bin/c3cc
  cp -r "$repo/include/c3" prefix/include/
  ar rc prefix/lib/libc3rt.a
  ar rc prefix/lib/libc3mpi.a
  cat > prefix/bin/c3-precompile <<'SH'
#!/usr/bin/env bash
# Stand-in: logs its command line, copies each IN to OUT; fails like the real one on request.
# --run-steps FILE: runs the commands listed in FILE (count, then arguments, NUL-terminated).
if [[ ${1:-} == --run-steps ]]; then
  mapfile -d '' items < "$2"
  i=0
  while ((i < ${#items[@]})); do
    n=${items[i]}
    "${items[@]:i+1:n}" || exit $?
    i=$((i + 1 + n))
  done
  exit 0
fi
echo "$*" >> "${STANDIN_LOG:-/dev/null}"
files=()
while (($#)); do
  case $1 in
    --whole-program | --embed-units) shift ;;
    --compile-arg) shift 2 ;;
    --) break ;;
    *) files+=("$1"); shift ;;
  esac
done
((${#files[@]} % 2 == 0)) || { echo "stand-in: odd number of files" >&2; exit 2; }
for ((i = 0; i < ${#files[@]}; i += 2)); do
  if grep -q precompile_must_fail "${files[i]}"; then
    echo "${files[i]}:1:1: error: stand-in diagnostic" >&2
    exit 1
  fi
  cp "${files[i]}" "${files[i + 1]}"
done
SH
  chmod +x prefix/bin/c3-precompile
  local_c3cc=$work/prefix/bin/c3cc
}

# No temporary directory of c3cc's may survive a call.
expect_no_temps() {
  local left
  left=$(find "$work/tmp" -mindepth 1 -maxdepth 1 -name 'c3cc-*' | wc -l)
  ((left == 0)) || fail "c3cc left $left temporary directories behind"
}

case_version() {
  run "$c3cc" --version
  expect_status 0
  [[ $(head -n 1 out) == "c3cc (c3) 0.1.0" ]] || fail "first line should be 'c3cc (c3) 0.1.0'"
  sed -n 2p out | grep -q 'clang version 14' || fail "second line should be clang-14's version"
}

case_help() {
  run "$c3cc" --help
  expect_status 0
  expect_in out "Usage: c3cc"
  expect_in out "-show"
}

case_no_input() {
  run "$c3cc" -O2 -Wall
  expect_status 1
  expect_line err "c3cc: error: no input files"
}

case_shared() {
  write_program
  run "$c3cc" -shared -fPIC util.c -o libutil.so
  expect_status 1
  expect_line err "c3cc: error: -shared is not supported: c3 programs must be linked -no-pie"
  [[ ! -e libutil.so ]] || fail "no library may be produced"
  run "$c3cc" -pie main.c util.c
  expect_status 1
  expect_in err "-pie is not supported"
  run "$c3cc" util.c -Wl,-soname,libutil.so,-shared -o libutil.so
  expect_status 1
  expect_line err "c3cc: error: -Wl,-shared is not supported: c3 programs must be linked -no-pie"
}

case_unsupported() {
  run "$c3cc" -c prog.cpp
  expect_status 1
  expect_in err "prog.cpp: only C sources are supported"
  run "$c3cc" -x c++ -c prog.c
  expect_status 1
  expect_in err "language 'c++' is not supported"
  run "$c3cc" -c main.c util.c -o both.o
  expect_status 1
  expect_line err "c3cc: error: cannot specify -o when generating multiple output files"
  run "$c3cc" -c main.c -o
  expect_status 1
  expect_in err "argument to '-o' is missing"
}

case_show_compile() {
  run "$c3cc" -show -O2 -g -Wall -std=c11 -Iinc -DN=3 -MD -MF deps.d -c main.c -o obj/main.o
  expect_status 0
  [[ $(wc -l < out) == 4 ]] || fail "expected 4 commands (preprocess, check, precompile, compile)"
  local pre check pc cc
  pre=$(sed -n 1p out) check=$(sed -n 2p out) pc=$(sed -n 3p out) cc=$(sed -n 4p out)
  [[ $pre == clang-14\ -E\ * || $pre == */clang-14\ -E\ * ]] || fail "line 1 should run clang-14 -E"
  for arg in -Iinc -DN=3 -std=c11 '-MD -MF deps.d -MT obj/main.o' -D__C3__=1 '-isystem /usr/include' \
    '-include c3/c3_abi.h -x c main.c'; do
    [[ $pre == *" $arg"* ]] || fail "preprocess command lacks '$arg': $pre"
  done
  [[ $pre =~ -I[^\ ]*/include\  ]] || fail "preprocess command lacks c3's include directory"
  [[ $pre == *" -w "* ]] || fail "the preprocessing leaves warnings to the check: $pre"
  # The check: the user's source with the user's flags, its warnings the only ones shown.
  [[ $check =~ ^(.*/)?clang-14\ -fsyntax-only\ -O2\ -g\ -Wall\ -std=c11\ -Iinc\ -DN=3\ -Qunused-arguments\ .*-D__C3__=1\ -x\ c\ main\.c$ ]] ||
    fail "unexpected check command: $check"
  [[ $check != *-M* ]] || fail "the check writes no dependency file: $check"
  # The object carries its link unit, with the arguments of its compile (link_units.hpp).
  [[ $pc =~ /c3-precompile\ --embed-units\ --compile-arg\ -O2\ --compile-arg\ -g\ --compile-arg\ -Wall\ --compile-arg\ -std=c11\ [^\ ]+/main\.i\ [^\ ]+/main\.c3\.i\ --\ -std=c11$ ]] ||
    fail "unexpected precompile command: $pc"
  [[ $pc != *--whole-program* ]] || fail "one source compiled with -c is not a whole program"
  [[ $cc =~ -x\ cpp-output\ -c\ [^\ ]+/main\.c3\.i\ -o\ obj/main\.o\ -O2\ -g\ -Wall\ -std=c11\ -w$ ]] ||
    fail "unexpected compile command: $cc"
  [[ ! -e obj ]] || fail "-show must not create anything"
}

case_show_link() {
  run "$c3cc" -show -O1 main.c extra.o -L/opt/lib -lfoo -lmpi -Wl,--as-needed libbar.a -o prog
  expect_status 0
  local link
  link=$(tail -n 1 out)
  [[ $link =~ \ -O1\ [^\ ]+/main\.o\ extra\.o\ -L/opt/lib\ -lfoo\ -Wl,--as-needed\ libbar\.a\ -no-pie\ -Wl,--build-id=sha1\  ]] ||
    fail "user link inputs must keep their order, before -no-pie: $link"
  [[ $link =~ /lib/libc3mpi\.a\ [^\ ]+/lib/libc3rt\.a\ .*-lboost_serialization\ -lstdc\+\+\ -lm\ .*-lmpich\ -o\ prog$ ]] ||
    fail "c3 libraries, their dependencies and MPICH must follow in that order: $link"
  [[ $link != *" -lmpi "* ]] || fail "-lmpi must be dropped (MPICH comes after the PMPI layer)"
  if command -v ld.gold > /dev/null; then
    [[ $link == *" -fuse-ld=gold "* ]] || fail "with ld.gold installed c3cc links with it: $link"
  fi
  run "$c3cc" -show main.c -fuse-ld=bfd -o prog
  [[ $(tail -n 1 out) != *"-fuse-ld=gold"* ]] || fail "a linker the user chose must stay"
  grep -q -- '--whole-program' out && fail "objects given: the sources are not the whole program"
  run "$c3cc" -show main.c util.c -o prog
  [[ $(grep -c c3-precompile out) == 1 ]] || fail "all sources go to one precompiler call"
  grep -q -- 'c3-precompile --whole-program [^ ]*/main.i [^ ]*/main.c3.i [^ ]*/util.i [^ ]*/util.c3.i$' out ||
    fail "two sources linked together are a whole program"
  run "$c3cc" -show main.c util.c -lm -o prog
  grep -q -- '--whole-program' out || fail "system libraries do not hide code from the precompiler"
  grep -q '^# c3cc: reads the c3 link units' out && fail "a whole program needs no link units"
  run "$c3cc" -show main.c util.c -lfoo -o prog
  grep -q -- '--whole-program' out && fail "-lfoo may call into the sources: not a whole program"
  grep -q -- 'c3-precompile --embed-units ' out || fail "sources linked with other code carry link units"
  grep -q '^# c3cc: reads the c3 link units of the objects among: [^ ]*/main.o [^ ]*/util.o -lfoo$' out ||
    fail "the link step must read the link units of the objects"
  run "$c3cc" -show -c main.c util.c
  [[ $(grep -c c3-precompile out) == 1 ]] || fail "all sources go to one precompiler call"
  grep -q -- '--whole-program' out && fail "-c: other objects may join at link time"
  grep -q -- '-c [^ ]*/util.c3.i -o util.o -w$' out || fail "-c without -o writes util.o"
  return 0
}

case_preprocess() {
  printf '#include <mpi.h>\n#include <c3/c3.h>\nint in_c3 = __C3__;\nint c3_world = MPI_COMM_WORLD;\n' > pp.c
  run "$c3cc" -E pp.c
  expect_status 0
  expect_in out "int in_c3 = 1;"
  expect_in out "int c3_restarting(void);"
  grep -q 'int c3_world = ((MPI_Comm)0x44000000)' out || fail "MPICH's mpi.h must be found"
  run "$c3cc" -M pp.c
  expect_status 0
  expect_in out "pp.o: pp.c"
  expect_in out "mpi.h"
  run "$c3cc" -E - <<< 'c3 = __C3__'
  expect_status 0
  expect_line out "c3 = 1"
  run "$c3cc" -c - <<< 'int main(void) { return 0; }'
  expect_status 1
  expect_line err "c3cc: error: -E or -x required when input is from standard input"
}

case_child_status() {
  write_program
  printf '#!/bin/sh\nexit 3\n' > fails.sh
  printf '#!/bin/sh\nkill -SEGV $$\n' > crashes.sh
  chmod +x fails.sh crashes.sh
  C3CC_CLANG=$work/fails.sh run "$c3cc" -E main.c
  expect_status 3
  C3CC_CLANG=$work/crashes.sh run "$c3cc" -E main.c
  expect_status 139
  expect_line err "c3cc: error: crashes.sh terminated by signal 11 (Segmentation fault)"
  C3CC_CLANG=$work/does-not-exist run "$c3cc" -E main.c
  expect_status 1
  expect_in err "cannot run '$work/does-not-exist'"
}

case_missing_pieces() {
  write_program
  mkdir -p lonely/bin
  cp "$c3cc" lonely/bin/c3cc
  run lonely/bin/c3cc -c main.c
  expect_status 1
  expect_line err "c3cc: error: c3 precompiler not found: $work/lonely/bin/c3-precompile (is c3 fully built or installed?)"
  echo 'int main(void) { return 0; }' > plain.c
  clang-14 -c plain.c -o plain.o
  run lonely/bin/c3cc plain.o -o prog
  expect_status 1
  expect_in err "c3cc: error: c3 runtime library not found: $work/lonely/lib/libc3"
}

case_pipeline() {
  write_program
  make_layout
  mkdir -p tmp obj
  export TMPDIR=$work/tmp STANDIN_LOG=$work/standin.log
  run "$local_c3cc" -O2 -Wall -MD -c main.c -o obj/main.o
  expect_status 0
  [[ -s obj/main.o ]] || fail "no object written"
  expect_in obj/main.d "obj/main.o: main.c"
  expect_not_in obj/main.d "$work/tmp"
  run "$local_c3cc" -O2 -c util.c
  expect_status 0
  [[ -s util.o ]] || fail "-c without -o must write util.o"
  run "$local_c3cc" obj/main.o util.o -o prog
  expect_status 0
  [[ $(./prog) == "total 12" ]] || fail "the linked program printed '$(./prog)'"
  readelf -h prog | grep -q 'Type:.*EXEC' || fail "the program must be linked -no-pie"
  readelf -n prog | grep -q 'Build ID: [0-9a-f]\{40\}$' || fail "the program needs a sha1 build-id"
  : > "$STANDIN_LOG"
  run "$local_c3cc" -std=gnu11 main.c util.c -o prog2
  expect_status 0
  [[ $(./prog2) == "total 12" ]] || fail "whole-program build printed '$(./prog2)'"
  [[ $(wc -l < "$STANDIN_LOG") == 1 ]] || fail "expected one precompiler call"
  grep -q -- '^--whole-program .* -- -std=gnu11$' "$STANDIN_LOG" || fail "bad precompiler call: $(cat "$STANDIN_LOG")"
  run "$local_c3cc" -x c - -o from_stdin <<< 'int main(void) { return 7; }'
  expect_status 0
  status=0
  ./from_stdin || status=$?
  expect_status 7
  expect_no_temps
}

case_precompile_failure() {
  write_program
  make_layout
  mkdir -p tmp
  export TMPDIR=$work/tmp
  printf 'int precompile_must_fail;\nint main(void) { return 0; }\n' > bad.c
  run "$local_c3cc" -c bad.c -o bad.o
  expect_status 1
  expect_in err "error: stand-in diagnostic"
  [[ ! -e bad.o ]] || fail "no output after a precompiler error"
  printf 'int main(void) { return undeclared; }\n' > wrong.c
  run "$local_c3cc" wrong.c -o wrong
  expect_status 1
  expect_in err "wrong.c:1:25: error: use of undeclared identifier 'undeclared'"
  [[ ! -e wrong ]] || fail "no output after a compile error"
  C3CC_KEEP_TEMPS=1 run "$local_c3cc" -c main.c
  expect_status 0
  local kept
  kept=$(sed -n 's/^c3cc: keeping temporary files in //p' err)
  [[ -n $kept && -f $kept/main.i && -f $kept/main.c3.i ]] || fail "C3CC_KEEP_TEMPS=1 must keep and name the directory"
  rm -rf "$kept"
  expect_no_temps
}

"case_$case_name"
echo "PASS ($case_name)"
