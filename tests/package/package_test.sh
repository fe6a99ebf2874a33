#!/usr/bin/env bash
# Installs exitbench as a user would: `cmake --install` to a scratch prefix,
# and the .deb from CPack unpacked into a scratch root. Checks the tree, the
# package's Depends and license, the program, its man page and completion.
#   tests/package/package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package_test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/exitbench share/man/man1/exitbench.1.gz share/man/man1/exitbench-run.1.gz \
         share/man/man1/exitbench-profile-record.1.gz share/bash-completion/completions/exitbench \
         share/zsh/vendor-completions/_exitbench share/doc/exitbench/README.md share/doc/exitbench/copyright \
         lib/systemd/system/exitbench-fleet.service lib/systemd/system/exitbench-fleet.timer; do
    [ -s "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
echo "cmake --install: $(cd "$tmp/prefix" && find . -type f | wc -l) files"

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" >/dev/null)
deb=$(ls "$tmp"/deb/*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libfmt libtracefs libtraceevent libsqlite3 libssl libstdc++; do
    grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
contents=$(dpkg-deb -c "$deb")  # into a variable: grep -q on a pipe would SIGPIPE it under pipefail
grep -q './usr/share/doc/exitbench/copyright' <<<"$contents" || fail "the .deb carries no copyright file"
for unit in exitbench-fleet.service exitbench-fleet.timer; do
    grep -q "./usr/lib/systemd/system/$unit" <<<"$contents" || fail "the .deb carries no $unit"
done
# Disabled by default: nothing in the package enables (or starts) the timer.
dpkg-deb -e "$deb" "$tmp/control"
! grep -rqs 'systemctl\|deb-systemd' "$tmp/control" || fail "a maintainer script enables or starts a unit"
echo "$(basename "$deb"): Depends: $depends"

dpkg -x "$deb" "$tmp/root"
bin=$tmp/root/usr/bin/exitbench
version=$(dpkg-deb -f "$deb" Version)
[[ $("$bin" --version) == *"$version"* ]] || fail "exitbench --version does not say $version"
page=$(MANWIDTH=100 man -l "$tmp/root/usr/share/man/man1/exitbench-run.1.gz" 2>/dev/null)
grep -q -- "--sessions" <<<"$page" || fail "exitbench-run(1) does not document --sessions"
grep -q "EXAMPLES" <<<"$page" || fail "exitbench-run(1) has no EXAMPLES section"
grep -qE '^ +exitbench run$' <<<"$page" || fail "exitbench-run(1) runs its examples together"
page=$(MANWIDTH=100 man -l "$tmp/root/usr/share/man/man1/exitbench.1.gz" 2>/dev/null)
grep -q "compare" <<<"$page" || fail "exitbench(1) does not list compare"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    listing=$("$bin" list)
    grep -q '^cpuid ' <<<"$listing" || fail "exitbench list from the package does not list cpuid"
else
    echo "package_test: 'exitbench list' not run: /dev/kvm is not readable and writable here"
fi

# The bash completion offers commands, options and closed lists of values.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _exitbench; echo "${COMPREPLY[*]}"' \
        _ "$tmp/root/usr/share/bash-completion/completions/exitbench" "$@"
}
[[ " $(complete_words exitbench ru) " == *" run "* ]] || fail "bash completion: 'ru' does not give run"
[[ $(complete_words exitbench run --format "") == *kut* ]] || fail "bash completion: run --format gives no formats"
[[ " $(complete_words exitbench profile report --key "") " == *" mean_t "* ]] || fail "bash completion: no --key values"
[[ " $(complete_words exitbench run cpu) " == *" cpuid "* ]] || fail "bash completion: no test names"
if command -v zsh >/dev/null; then
    zsh -n "$tmp/root/usr/share/zsh/vendor-completions/_exitbench" || fail "the zsh completion does not parse"
else
    echo "package_test: zsh completion not parsed: zsh is not installed"
fi
echo "package_test: ok"
