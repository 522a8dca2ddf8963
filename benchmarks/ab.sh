#!/usr/bin/env bash
# A/B run of the scenario runner: the library as built from <commit> against the current tree,
# in the same JVM, beside Netty and the JDK.
#
# Usage: benchmarks/ab.sh <commit> [ScenarioRunner args...]
#   e.g. benchmarks/ab.sh 1df4be2 churn --rounds 3 | tee benchmarks/results/ab-churn-$(date +%F).txt
#
# What it does:
#   1. checks <commit> out into a git worktree in a temporary directory and builds its
#      wheel-core and wheel-executor jars there (mvn package, never install: nothing is written
#      to the local repository but what Maven downloads);
#   2. builds the current benchmarks jar (skip with AB_SKIP_BUILD=1);
#   3. runs io.github.timingwheel.benchmarks.scenarios.ScenarioRunner from the current jar with
#      -Dbaseline.classpath set to the old jars, so that the subjects baseline-executor and
#      baseline-timer are the old commit's executor and timer, loaded in a class loader of their
#      own (see benchmarks/src/main/java/.../subjects/Baseline.java);
#   4. removes the temporary worktree.
# Without --subjects among the arguments, the subjects are the current and the baseline
# executor and timer, jdk-stpe (with setRemoveOnCancelPolicy(true)), netty-hwt-1ms and
# netty-hwt-100ms. The JVM options default to -Xms8g -Xmx8g -XX:+AlwaysPreTouch (the heap's pages
# touched before the first round: otherwise the kernel zeroes each page the first time a
# subject allocates into it, up to a fifth of a producer's time in the early rounds of churn,
# and whichever subject runs first pays it); set AB_JAVA_OPTS to change them.
# The old commit must use the same JCTools and Netty versions as the current one (they come
# from the current benchmarks jar).
set -euo pipefail

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
fi
commit=$1
shift

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
old=$(git -C "$root" rev-parse --verify "$commit^{commit}")
new=$(git -C "$root" rev-parse HEAD)
dirty=$(git -C "$root" status --porcelain --untracked-files=no | grep -q . && echo " with uncommitted changes" || true)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/timingwheel-ab.XXXXXX")
cleanup() {
    git -C "$root" worktree remove --force "$tmp/baseline" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

echo "A/B: building the baseline ${old:0:10} in $tmp/baseline" >&2
git -C "$root" worktree add --detach --quiet "$tmp/baseline" "$old"
(cd "$tmp/baseline" && mvn -B -q -pl wheel-executor -am package -DskipTests)

jar_of() { # the module's main jar, not its sources, javadoc or test jars
    find "$tmp/baseline/$1/target" -maxdepth 1 -name "$1-*.jar" \
        ! -name '*-sources.jar' ! -name '*-javadoc.jar' ! -name '*-tests.jar' | head -n 1
}
core=$(jar_of wheel-core)
executor=$(jar_of wheel-executor)
if [[ -z $core || -z $executor ]]; then
    echo "ab.sh: no wheel-core or wheel-executor jar was built for $old" >&2
    exit 1
fi

if [[ ${AB_SKIP_BUILD:-0} != 1 ]]; then
    echo "A/B: building the current benchmarks jar" >&2
    (cd "$root" && mvn -B -q -pl benchmarks -am package -DskipTests)
fi

args=("$@")
has_subjects=0
for arg in "${args[@]}"; do
    [[ $arg == --subjects ]] && has_subjects=1
done
if [[ $has_subjects == 0 ]]; then
    args+=(--subjects wheel-executor,baseline-executor,wheel-timer,baseline-timer,jdk-stpe,netty-hwt-1ms,netty-hwt-100ms)
fi

echo "A/B: baseline-* = $old ($(git -C "$root" log -1 --format=%s "$old" | cut -c1-72))"
echo "A/B: wheel-*    = $new$dirty ($(git -C "$root" log -1 --format=%s "$new" | cut -c1-72))"
echo "A/B: command    = benchmarks/ab.sh $commit $*"
# shellcheck disable=SC2086 # AB_JAVA_OPTS is a list of options
java ${AB_JAVA_OPTS:--Xms8g -Xmx8g -XX:+AlwaysPreTouch} -Dbaseline.classpath="$core:$executor" \
    -cp "$root/benchmarks/target/benchmarks.jar" \
    io.github.timingwheel.benchmarks.scenarios.ScenarioRunner "${args[@]}"
