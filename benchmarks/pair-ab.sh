#!/usr/bin/env bash
# CPU per schedule+cancel pair on one producer's core (PairCpu), two benchmarks jars in turn:
# on a noisy host the same build varies by a third between runs, so the jars alternate and
# each prints every kept round and their median.
#
# Usage: benchmarks/pair-ab.sh <subject> <alternations> <jar A> <jar B>
#   e.g. benchmarks/pair-ab.sh wheel-executor 6 /tmp/old/benchmarks/target/benchmarks.jar \
#            benchmarks/target/benchmarks.jar
# Each run is PairCpu <subject> 1 10000000 4 on a pre-touched 4 GB heap; rounds 2 and 3 are
# kept (the first is warm-up, the last may meet the shutdown of the first subject's threads).
set -euo pipefail

if [[ $# -ne 4 || $1 == -h || $1 == --help ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
fi
subject=$1
alternations=$2
declare -A jars=([A]=$3 [B]=$4)
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for ((i = 1; i <= alternations; i++)); do
    for tag in A B; do
        java -Xms4g -Xmx4g -XX:+AlwaysPreTouch -cp "${jars[$tag]}" \
                io.github.timingwheel.benchmarks.executor.PairCpu "$subject" 1 10000000 4 \
            | grep "round [23]" | sed -n "s/.*producers \([0-9]*\) workers.*/$tag \1/p" | tee -a "$raw"
    done
done
for tag in A B; do
    sorted=$(grep "^$tag " "$raw" | cut -d' ' -f2 | sort -n | tr '\n' ' ')
    median=$(grep "^$tag " "$raw" | cut -d' ' -f2 | sort -n \
        | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}')
    echo "$tag (${jars[$tag]}): ns per pair, sorted: ${sorted}median $median"
done
