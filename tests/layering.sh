#!/usr/bin/env bash
# The layers, one way down: a directory may include only the directories
# listed for it (its own always). Run by the build (target layering_check, in
# `all`), so an include that points up the stack fails the build.
# Usage: layering.sh SOURCE_DIR
set -euo pipefail
cd "$1"

declare -A may=(
    [sys]=""
    [guest]=""
    [stats]=""
    [kvm]="sys"
    [vmm]="sys kvm guest"
    [env]="sys kvm guest vmm"
    [suite]="sys kvm guest vmm stats profile"
    [profile]="sys kvm stats"
    [result]="sys kvm guest vmm stats suite profile"
    [report]="sys kvm guest vmm stats suite result profile"
    [history]="sys kvm guest vmm stats suite result profile"
    [ingest]="sys kvm guest vmm stats suite result profile report"
    [lab]="sys kvm guest vmm stats suite result profile report history env ingest"
    [cli]="sys result report lab"  # parse and print: the rest through lab/ (lab/vocabulary.h)
)

bad=0
for dir in "${!may[@]}"; do
    [ -d "$dir" ] || continue
    while IFS=: read -r file line text; do
        used=${text#*\#include \"}  # no process per line: the check runs in every build
        used=${used%%/*}
        [ "$used" = "$dir" ] && continue
        case " ${may[$dir]} " in *" $used "*) continue ;; esac
        echo "layering: $file:$line includes $used/, which $dir/ may not use (allowed: ${may[$dir]:-nothing})" >&2
        bad=1
    done < <(grep -rnE '^#include "[a-z_]+/' "$dir" --include='*.cpp' --include='*.h' --include='*.S' || true)
done
# The command line names nothing below lab/ by its own name either: the
# types and spellings it prints come through lab/vocabulary.h, the work
# through the use cases, so no include relayed by a lab/ header lets it call
# suite/, profile/ or history/ itself.
while IFS=: read -r file line _; do
    echo "layering: $file:$line names a layer below lab/; use its name in lab/ (lab/vocabulary.h, or the use case)" >&2
    bad=1
done < <(grep -rnE '(^|[^A-Za-z0-9_:])(::)?(eb::)?(suite|profile|ingest|history|stats|guest|vmm|kvm|env|abi)::' cli \
             --include='*.cpp' --include='*.h' 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
# One way to start a program: sys/process.h. Elsewhere a fork or exec would
# skip its process group, its timeouts and its reaping.
while IFS=: read -r file line _; do
    echo "layering: $file:$line starts a process itself; use sys/process.h (sys::Process, run_process)" >&2
    bad=1
done < <(grep -rnE '(^|[^A-Za-z0-9_.>])(fork|vfork|execv|execvp|execve|execl|execlp|posix_spawnp?|popen|system)[[:space:]]*\(' \
             "${!may[@]}" bench --include='*.cpp' --include='*.h' 2>/dev/null | grep -v '^sys/' || true)
exit $bad
