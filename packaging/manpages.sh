#!/usr/bin/env bash
# Builds the man pages from the program's own --help, so they cannot drift
# from it: exitbench(1), and exitbench-CMD(1) for every command and
# subcommand (exitbench-profile-record(1), ...).
#   packaging/manpages.sh BINARY OUTDIR VERSION
set -euo pipefail
bin=$1 out=$2 version=$3
mkdir -p "$out"
rm -f "$out"/*.1 "$out"/*.1.gz

# The command names listed under "Subcommands:" (CLI11's --help layout).
subcommands() {
    awk '/^[A-Za-z]+:$/ { on = ($0 == "Subcommands:" || $0 == "SUBCOMMANDS:"); next }
         on && /^  [a-z]/ { print $1 }' <<<"$1"
}

page() {
    local path=$1 help name desc
    help=$("$bin" $path --help)
    name=exitbench${path:+-${path// /-}}
    # The description: the one-line summary the parent lists for this command.
    desc=${2:-"what does one VM exit cost? A KVM VM-exit laboratory"}
    help2man --no-info --no-discard-stderr --version-string="$version" \
        --help-option="$path --help" --name="$desc" --section=1 \
        --output="$out/$name.1" "$bin"
    # help2man titles every page after the program; each page is its command's.
    local upper=${name^^}
    sed -i -e "s/^\.TH EXITBENCH /.TH ${upper//-/\\\\-} /" -e "0,/^exitbench \\\\- /s//${name//-/\\\\-} \\\\- /" \
        "$out/$name.1"
    # Examples are command lines: keep one per line (no filling).
    awk '/^\.SH EXAMPLES/ { ex = 1; print; next }
         ex && /^\.SH/ { print ".fi"; ex = 0 }
         ex && /^\.IP$/ && !nf { print; print ".nf"; nf = 1; next }
         { print }
         END { if (ex) print ".fi" }' "$out/$name.1" > "$out/$name.1.tmp"
    mv "$out/$name.1.tmp" "$out/$name.1"
    local sub line
    for sub in $(subcommands "$help"); do
        line=$(grep -m1 -E "^  $sub( |$)" <<<"$help" | sed -E "s/^  $sub +//")
        page "${path:+$path }$sub" "${line:-exitbench $path $sub}"
    done
}

page ""
gzip -9n "$out"/*.1
