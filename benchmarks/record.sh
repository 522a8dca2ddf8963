#!/usr/bin/env bash
# Runs one benchmark command and keeps its whole output in benchmarks/results/, headed by the
# command, the time, the commit (and whether the tree had uncommitted changes) and the machine's
# load, so that every published figure can name its command, commit and raw file.
#
# Usage: benchmarks/record.sh <name> <command...>
#   e.g. benchmarks/record.sh scale java -Xms10g -Xmx10g -cp benchmarks/target/benchmarks.jar \
#            io.github.timingwheel.benchmarks.scenarios.ScenarioRunner scale --rounds 3
#   writes benchmarks/results/scale-<UTC date>.txt (-2, -3, ... if that exists) and prints it too.
set -euo pipefail

if [[ $# -lt 2 || $1 == -h || $1 == --help ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
fi
name=$1
shift
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
day=$(date -u +%F)
out="$root/benchmarks/results/$name-$day.txt"
n=2
while [[ -e $out ]]; do
    out="$root/benchmarks/results/$name-$day-$n.txt"
    n=$((n + 1))
done
commit=$(git -C "$root" rev-parse --short HEAD)
dirty=$(git -C "$root" status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
{
    echo "# $*"
    echo "# $(date -u +%FT%H:%MZ), $(git -C "$root" rev-parse --abbrev-ref HEAD) at $commit$dirty; $(nproc) CPUs; $(uptime | sed 's/.*load/load/')"
} | tee "$out"
start=$(date +%s)
"$@" 2>&1 | tee -a "$out"
echo "# took $(( $(date +%s) - start )) s" | tee -a "$out"
echo "recorded in ${out#"$root"/}" >&2
