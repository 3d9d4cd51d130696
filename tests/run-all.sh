#!/bin/sh
# run-all.sh - every test: the normal build (with ISA-L when installed), then
# an ASan+UBSan build, each with the whole `meson test` suite, and a build
# without ISA-L for the suites that read gzip. This is the README's test command and
# what .ci/run runs. Build trees go under build*/ (ignored by git).
set -eu
cd "$(dirname "$0")/.."
jobs=${TPA_JOBS:-2}

step() { printf '\n=== %s\n' "$*"; }

step "build and test (debugoptimized, --werror)"
[ -d build-ci ] || meson setup build-ci --werror >/dev/null
ninja -C build-ci -j "$jobs"
meson test -C build-ci --num-processes "$jobs" --print-errorlogs

# The portable build: the built-in gzip decoder with zlib alone, and the
# scalar JSON scanner (lib/parse/json_scan.h without SSE2, as on aarch64).
# The unit tests run both backends and both scanners in one build; the CLI
# goldens (bad and cut gzip among them) and the fuzz replays need a build
# of their own to run the other paths of the whole reader.
step "portable build (-Disal=disabled -Dsimd=disabled, --werror); unit, cli and fuzz tests"
[ -d build-portable ] || meson setup build-portable --werror -Disal=disabled \
        -Dsimd=disabled >/dev/null
ninja -C build-portable -j "$jobs"
meson test -C build-portable --num-processes "$jobs" --print-errorlogs \
        --suite unit --suite cli --suite fuzz

# clang warns where gcc does not (-Wformat-nonliteral, fall-through comments),
# so the tree must build clean with both. Only when clang is installed (CI
# does not install it), and only the unit and cli suites, to keep CI short.
if command -v clang >/dev/null 2>&1; then
        step "build with clang (--werror); unit and cli tests"
        [ -d build-clang ] || CC=clang meson setup build-clang --werror >/dev/null
        ninja -C build-clang -j "$jobs"
        meson test -C build-clang --num-processes "$jobs" --print-errorlogs \
                --suite unit --suite cli
else
        step "clang is not installed: no clang build"
fi

step "build and test under ASan+UBSan"
[ -d build-san ] || CC=${SAN_CC:-gcc} meson setup build-san --werror \
        -Db_sanitize=address,undefined -Db_lundef=false -Darena_debug=true >/dev/null
ninja -C build-san -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
        meson test -C build-san --num-processes "$jobs" --print-errorlogs \
        --timeout-multiplier 4

# valgrind: the library and test programs (unit, fuzz replays), then the CLI
# binary itself under each golden case (TPA_EXEC_PREFIX). The setups are in
# the top meson.build; 'headers' runs the compiler through sh and 'slow' is
# opt-in, so neither is worth valgrind's time. About 2 minutes on 2 cores.
step "valgrind: unit and fuzz replays"
meson test -C build-ci --setup=valgrind --num-processes "$jobs" --print-errorlogs \
        --no-suite headers --no-suite slow
step "valgrind: the CLI under every golden case"
meson test -C build-ci --setup=valgrindcli --suite cli --num-processes "$jobs" \
        --print-errorlogs

step "all tests passed"
