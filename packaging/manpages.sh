#!/usr/bin/env bash
# Builds the man pages from the program's own --help, so they cannot drift
# from it: exitbench(1), and exitbench-CMD(1) for every command and
# subcommand (exitbench-profile-record(1), ...).
#   packaging/manpages.sh BINARY OUTDIR VERSION
set -euo pipefail
bin=$1 out=$2 version=$3
mkdir -p "$out"
rm -f "$out"/*.1 "$out"/*.1.gz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The root's --help ends with its exit statuses, environment and files
# (cli/manual.cpp). Every page gets them unless its command prints its own
# (compare's and bisect-step's exit statuses): help2man reads each --help
# through this wrapper, which also makes "Exit status:" a section of its own
# (help2man's "*Name*" form; "Environment:" and "Files:" it knows).
root_help=$("$bin" --help)
for title in "Exit status" Environment Files; do
    awk -v h="$title:" '$0 == h { on = 1 } on && /^$/ { exit } on' <<<"$root_help" > "$tmp/$title"
    [ -s "$tmp/$title" ] || { echo "manpages.sh: no '$title:' in $bin --help" >&2; exit 1; }
done
cat > "$tmp/exitbench" <<WRAP
#!/usr/bin/env bash
set -o pipefail
help=\$("$bin" "\$@") || exit
{
    printf '%s\\n' "\$help"
    for title in "Exit status" Environment Files; do
        grep -qx "\$title:" <<<"\$help" || { echo; cat "$tmp/\$title"; }
    done
} | sed 's/^Exit status:\$/*Exit status*/'
WRAP
chmod +x "$tmp/exitbench"

# SEE ALSO: the root page, the parent's and the subcommands' pages, and the manuals.
see_also() {  # PATH SUBCOMMANDS...
    local path=$1 refs=() parent
    shift
    [ -z "$path" ] || refs+=(exitbench)
    parent=${path% *}
    [ "$parent" = "$path" ] || refs+=("exitbench-${parent// /-}")
    local sub
    for sub in "$@"; do refs+=("exitbench${path:+-${path// /-}}-$sub"); done
    echo "[SEE ALSO]"
    local i
    for i in "${!refs[@]}"; do
        printf '.BR \\%%%s (1)%s\n' "${refs[$i]//-/\\-}" "$([ "$i" -lt $((${#refs[@]} - 1)) ] && echo ,)"
    done
    echo ".PP"
    echo "README.md and the manuals in docs/ (statistics, kernels, ci, fleet, profiling, exports, history, ...),"
    echo "installed in /usr/share/doc/exitbench/."
}

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
    see_also "$path" $(subcommands "$help") > "$tmp/$name.h2m"
    help2man --no-info --no-discard-stderr --version-string="$version" \
        --help-option="$path --help" --name="$desc" --section=1 --include="$tmp/$name.h2m" \
        --output="$out/$name.1" "$tmp/exitbench"
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
