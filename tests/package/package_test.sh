#!/usr/bin/env bash
# Installs exitbench as a user would: `cmake --install` to a scratch prefix,
# and the .deb from CPack unpacked into a scratch root. Checks the tree, the
# package's Depends and license, lintian's verdict, the binary's hardening,
# the maintainer scripts, the program, its man page and completion.
#   tests/package/package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package_test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/exitbench share/man/man1/exitbench.1.gz share/man/man1/exitbench-run.1.gz \
         share/man/man1/exitbench-profile-record.1.gz share/bash-completion/completions/exitbench \
         share/zsh/vendor-completions/_exitbench share/doc/exitbench/README.md share/doc/exitbench/copyright share/doc/exitbench/changelog.gz \
         lib/systemd/system/exitbench-fleet.service lib/systemd/system/exitbench-fleet.timer; do
    [ -s "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
# The manuals, and every one the installed README links to.
for m in statistics kernels ci fleet profiling robustness history exports kut-differences install run bench; do
    [ -s "$tmp/prefix/share/doc/exitbench/docs/$m.md" ] || fail "cmake --install did not install docs/$m.md"
done
for link in $(grep -o '](docs/[a-z-]*\.md' "$tmp/prefix/share/doc/exitbench/README.md" | sed 's/^](//' | sort -u); do
    [ -s "$tmp/prefix/share/doc/exitbench/$link" ] || fail "the installed README links to $link, which is not installed"
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
grep -q './usr/share/doc/exitbench/docs/statistics.md' <<<"$contents" || fail "the .deb carries no manuals"
for unit in exitbench-fleet.service exitbench-fleet.timer; do
    grep -q "./usr/lib/systemd/system/$unit" <<<"$contents" || fail "the .deb carries no $unit"
done
# The maintainer scripts, as dh_installsystemd --no-enable writes them: the
# timer is disabled on a first install (enabled again on upgrade only if it
# was), stopped on removal, its state purged.
dpkg-deb -e "$deb" "$tmp/control"
for script in postinst prerm postrm; do
    [ -x "$tmp/control/$script" ] || fail "the .deb has no executable $script"
    sh -n "$tmp/control/$script" || fail "$script does not parse"
done
grep -B1 "deb-systemd-helper enable" "$tmp/control/postinst" | grep -q "was-enabled" ||
    fail "postinst enables the timer on a first install"
grep -q "deb-systemd-invoke stop 'exitbench-fleet.timer'" "$tmp/control/prerm" || fail "prerm leaves the timer running"
grep -q "deb-systemd-helper purge 'exitbench-fleet.timer'" "$tmp/control/postrm" || fail "postrm does not purge"
echo "$(basename "$deb"): Depends: $depends"

# Debian's policy as lintian checks it, at its default level: no error, no warning.
if command -v lintian >/dev/null; then
    # Its own TMPDIR: lintian leaves an MLDBM cache (mldbm-elf-*) in TMPDIR behind.
    said=$(TMPDIR=$tmp lintian --fail-on error,warning "$deb" 2>&1) || { echo "$said"; fail "lintian rejects the .deb"; }
    said=$(sed '/^running with root privileges/d' <<<"$said")
    echo "lintian: ${said:-no error and no warning}"
else
    echo "package_test: lintian not run: it is not installed (Debian package lintian)"
fi

dpkg -x "$deb" "$tmp/root"
bin=$tmp/root/usr/bin/exitbench
# dpkg-buildflags' hardening: full RELRO with BIND_NOW, fortified calls, the stack protector.
dynamic=$(readelf -d "$bin") symbols=$(readelf --dyn-syms -W "$bin")
grep -qE 'BIND_NOW|FLAGS_1.*NOW' <<<"$dynamic" || fail "the binary is not linked with -z now"
grep -q 'GNU_RELRO' <<<"$(readelf -lW "$bin")" || fail "the binary has no RELRO"
grep -q '__stack_chk_fail' <<<"$symbols" || fail "the binary has no stack protector"
grep -qE '__[a-z_]+_chk(@|$| )' <<<"$(grep -v __stack_chk <<<"$symbols")" || fail "the binary calls no fortified function"
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
    "$tmp/root/usr/share/doc/exitbench/copyright" || fail "the copyright is not DEP-5"
grep -q '/usr/share/common-licenses/GPL-2' "$tmp/root/usr/share/doc/exitbench/copyright" ||
    fail "the copyright does not point to common-licenses"
echo "hardening: BIND_NOW, RELRO, stack protector, fortified calls"
version=$(dpkg-deb -f "$deb" Version)
[[ $("$bin" --version) == *"$version"* ]] || fail "exitbench --version does not say $version"
page=$(MANWIDTH=100 man -l "$tmp/root/usr/share/man/man1/exitbench-run.1.gz" 2>/dev/null)
grep -q -- "--sessions" <<<"$page" || fail "exitbench-run(1) does not document --sessions"
grep -q "EXAMPLES" <<<"$page" || fail "exitbench-run(1) has no EXAMPLES section"
grep -qE '^ +exitbench run$' <<<"$page" || fail "exitbench-run(1) runs its examples together"
page=$(MANWIDTH=100 man -l "$tmp/root/usr/share/man/man1/exitbench.1.gz" 2>/dev/null)
grep -q "compare" <<<"$page" || fail "exitbench(1) does not list compare"
# EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO on every page, made from --help
# (packaging/manpages.sh): the root's exit statuses unless the command has its own.
for man in "$tmp"/root/usr/share/man/man1/*.1.gz; do
    name=$(basename "$man" .1.gz) page=$(MANWIDTH=100 man -l "$man" 2>/dev/null)
    for section in "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO"; do
        grep -q "^$section" <<<"$page" || fail "$name(1) has no $section section"
    done
    grep -q 'XDG_DATA_HOME' <<<"$page" || fail "$name(1)'s ENVIRONMENT lacks XDG_DATA_HOME"
    case $name in
    exitbench-compare) want=("no test to compare") ;;
    exitbench-bisect-step) want=(125 128) ;;
    *) want=("an internal error" "interrupted by SIGINT") ;;
    esac
    for w in "${want[@]}"; do
        grep -q -- "$w" <<<"$(sed -n '/^EXIT STATUS/,/^[A-Z]/p' <<<"$page")" || fail "$name(1)'s EXIT STATUS lacks '$w'"
    done
done
lexgrog "$tmp/root/usr/share/man/man1/exitbench-run.1.gz" >/dev/null || fail "lexgrog finds no NAME in exitbench-run(1)"
echo "man pages: $(ls "$tmp"/root/usr/share/man/man1/*.1.gz | wc -l), each with EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO"
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
