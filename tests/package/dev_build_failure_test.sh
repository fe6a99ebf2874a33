#!/usr/bin/env bash
# `./dev run` and `./dev bench` on a scratch copy of the tree with one source
# file deliberately broken: each must exit non-zero and show the compiler's
# message and the failing target, not only an exit status.
#   tests/package/dev_build_failure_test.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "dev_build_failure_test: FAIL: $*" >&2; exit 1; }

# The tracked and the new (unignored) files, as a fresh clone would have them.
mkdir "$tmp/copy"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$tmp/copy") ||
    fail "cannot copy the tree"
echo 'static_assert(false, "exitbench deliberately broken for the dev test");' >>"$tmp/copy/cli/list.cpp"

for mode in run bench; do
    rc=0
    out=$(cd "$tmp/copy" && ./dev "$mode" --help 2>&1) || rc=$?
    [ $rc -ne 0 ] || fail "./dev $mode exited 0 on a broken build"
    grep -q 'exitbench deliberately broken for the dev test' <<<"$out" || { echo "$out" | tail -20; fail "./dev $mode hid the compiler's message"; }
    grep -q '^FAILED: .*eb_cli' <<<"$out" || { echo "$out" | tail -20; fail "./dev $mode did not name the failing target"; }
    grep -q 'dev: the build failed' <<<"$out" || fail "./dev $mode did not say the build failed"
    echo "./dev $mode: exit $rc, the compiler's message and the failing target shown"
done
