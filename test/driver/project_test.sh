#!/usr/bin/env bash
# Builds test/driver/tiny with the real c3cc, as a CMake project (-DCMAKE_C_COMPILER=c3cc) or
# with CC=c3cc make, or with CC=c3cc make after `cmake --install` of the c3 build (to check that
# an installed c3cc finds all its pieces), then runs it: the checkpoint must be committed and
# the output right.
#   usage: project_test.sh cmake|make|install <c3cc executable> <repository root> [build dir]
set -euo pipefail

mode=$1
c3cc=$2
repo=$3

work=$(mktemp -d "${TMPDIR:-/tmp}/c3cc-project.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$repo/test/driver/tiny" "$work/src"
cd "$work"

fail() {
  echo "FAIL ($mode): $*" >&2
  exit 1
}

case $mode in
  cmake)
    cmake -S src -B build -G Ninja -DCMAKE_C_COMPILER="$c3cc" > configure.log 2>&1 ||
      { cat configure.log; fail "cmake could not configure with c3cc"; }
    grep -q 'The C compiler identification is Clang 14' configure.log ||
      { cat configure.log; fail "CMake should identify c3cc as Clang 14"; }
    cmake --build build || fail "the CMake build failed"
    program=build/tiny
    ;;
  make)
    CC=$c3cc make -j2 -C src || fail "CC=c3cc make -j2 failed"
    program=src/tiny
    ;;
  install)
    cmake --install "$4" --prefix "$work/prefix" > install.log || fail "cmake --install failed"
    CC=$work/prefix/bin/c3cc make -C src || fail "CC=<installed c3cc> make failed"
    program=src/tiny
    ;;
  *) fail "unknown mode" ;;
esac

readelf -h "$program" | grep -q 'Type:.*EXEC' || fail "$program is not linked -no-pie"
export C3_CKPT_DIR=$work/checkpoints
output=$("$program") || fail "$program failed"
[[ $output == "sum of squares 385, root 4.0, fresh run" ]] || fail "unexpected output: $output"
compgen -G "$C3_CKPT_DIR/ckpt.*/COMMITTED" > /dev/null || fail "the forced checkpoint was not committed"
echo "PASS ($mode)"
