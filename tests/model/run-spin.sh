#!/usr/bin/env bash
# Model-checks tests/model/lease.pml with Spin (docs/lease-runtime.md, "The protocol,
# model-checked"). One mode a run:
#
#   project        this project's statements, searched exhaustively: must end with no error, with
#                  the whole state space searched (no depth or memory cut-off)
#   literal        ADR-114's literal statements: must yield the duplicate token, and, with that
#                  check left out, the double fence it leads to; each trail must replay
#   clock-behind   this project's statements with the standby's clock behind by the failover's
#                  length: must yield the duplicate token (the amendment's assumption, broken)
#   liveness       this project's statements under weak fairness: a dead holder's role is taken
#                  (LTL, no acceptance cycle), once with the failover and once with the pause
#   markers        the takeover at process death (migration 0179) with the failover, searched
#                  exhaustively: must end with no error; and without the incarnation test in the
#                  early take it must yield a live holder taken early
#
# usage: run-spin.sh MODE MODEL.pml WORKDIR
set -euo pipefail

if (($# != 3)); then
    echo "usage: $0 project|literal|clock-behind|liveness|markers MODEL.pml WORKDIR" >&2
    exit 2
fi
mode=$1
model=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
workdir=$3

for tool in spin cc; do
    command -v "$tool" >/dev/null || {
        echo "run-spin: $tool not found (scripts/setup-deps.sh installs it)" >&2
        exit 1
    }
done

# The bounds of the exhaustive run; docs/lease-runtime.md says what they leave out.
bounds=(-DNREP=2 -DLAG=1 -DFAILOVERS=1 -DPAUSES=1)

# Generates and compiles a verifier in its own folder, runs it, and leaves its output in out.txt.
#   verify NAME "SPIN_DEFINES" "CC_DEFINES" PAN_ARGS...
verify() {
    local name=$1 spin_defines=$2 cc_defines=$3
    shift 3
    local dir=$workdir/$name
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$model" "$dir/lease.pml"
    local started=$SECONDS
    # shellcheck disable=SC2086 # the defines are words on purpose
    (cd "$dir" && spin -a $spin_defines lease.pml >spin.txt &&
        cc -O2 -w $cc_defines -o pan pan.c &&
        nice -n 10 ./pan "$@" >out.txt 2>&1) || {
        cat "$dir/spin.txt" "$dir/out.txt" 2>/dev/null >&2 || true
        echo "run-spin: $name: spin, cc or pan failed" >&2
        return 1
    }
    echo "run-spin: $name: $((SECONDS - started)) s;" \
        "$(grep -E 'states, stored' "$dir/out.txt" | xargs);" \
        "$(grep -oE 'depth reached [0-9]+' "$dir/out.txt")"
}

# The run must have found exactly the named assertion, and its trail must replay.
expect_violation() {
    local name=$1 spin_defines=$2 ghost=$3
    local dir=$workdir/$name
    if ! grep -q "assertion violated  !($ghost)" "$dir/out.txt"; then
        cat "$dir/out.txt" >&2
        echo "run-spin: $name: expected the violation of !($ghost), found another outcome" >&2
        return 1
    fi
    # shellcheck disable=SC2086
    (cd "$dir" && spin -t -p -g $spin_defines lease.pml >trail.txt 2>&1)
    if ! grep -q "text of failed assertion: assert(!($ghost))" "$dir/trail.txt"; then
        tail -n 20 "$dir/trail.txt" >&2
        echo "run-spin: $name: the trail does not replay to !($ghost)" >&2
        return 1
    fi
    echo "run-spin: $name: counterexample !($ghost) found," \
        "$(grep -oE 'at depth [0-9]+' "$dir/out.txt" | head -n 1); trail in $dir/trail.txt"
}

# The verifier must have searched its whole state space and found nothing.
expect_clean() {
    local name=$1
    local out=$workdir/$name/out.txt
    if ! grep -q 'errors: 0' "$out"; then
        cat "$out" >&2
        echo "run-spin: $name: the model has an error (the trail is in $workdir/$name)" >&2
        return 1
    fi
    if grep -qE 'Search not completed|search depth too small|reached -DMEMLIM' "$out"; then
        cat "$out" >&2
        echo "run-spin: $name: the search was not exhaustive" >&2
        return 1
    fi
}

case $mode in
project)
    # Exhaustive: -DSAFETY (assertions and invariants only), -DCOLLAPSE (lossless compression),
    # never bitstate hashing. -m is far above the depth reached, so no path is cut short.
    verify project "${bounds[*]}" "-DSAFETY -DCOLLAPSE -DMEMLIM=2000" -m2000000
    expect_clean project
    ;;
literal)
    # Breadth-first, so the trail is a shortest one.
    verify literal-token "-DLITERAL ${bounds[*]}" "-DSAFETY -DBFS -DMEMLIM=2000"
    expect_violation literal-token "-DLITERAL ${bounds[*]}" tokenIssuedTwice
    verify literal-fence "-DLITERAL -DNO_TOKEN_CHECK ${bounds[*]}" "-DSAFETY -DBFS -DMEMLIM=2000"
    expect_violation literal-fence "-DLITERAL -DNO_TOKEN_CHECK ${bounds[*]}" \
        twoReplicasPassTheFence
    ;;
clock-behind)
    verify clock-behind "-DCLOCK_BEHIND ${bounds[*]}" "-DSAFETY -DBFS -DMEMLIM=2000"
    expect_violation clock-behind "-DCLOCK_BEHIND ${bounds[*]}" tokenIssuedTwice
    ;;
liveness)
    # Acceptance cycles under weak fairness (-a -f). With both the failover and the pause the
    # product with the fairness copies does not fit the budget, so each runs on its own.
    verify liveness-failover "-DLIVENESS -DNREP=2 -DLAG=1 -DFAILOVERS=1 -DPAUSES=0" \
        "-DNFAIR=3 -DCOLLAPSE -DMEMLIM=2000" -a -f -m2000000
    expect_clean liveness-failover
    verify liveness-pause "-DLIVENESS -DNREP=2 -DLAG=1 -DFAILOVERS=0 -DPAUSES=1" \
        "-DNFAIR=3 -DCOLLAPSE -DMEMLIM=2000" -a -f -m2000000
    expect_clean liveness-pause
    ;;
markers)
    # The pause stays out: leader_pause clears the holder and the expiry, so a paused row is never
    # taken early, and the project mode checks the pause without markers. With it, the search
    # passes 53 million states and 6 GB without finishing; without it, about 33 million and 3.3 GB.
    marker_bounds="-DMARKERS -DNREP=2 -DLAG=1 -DFAILOVERS=1 -DPAUSES=0 -DMARKER_LOSSES=1"
    verify markers "$marker_bounds" "-DSAFETY -DCOLLAPSE -DMEMLIM=6000" -m2000000
    expect_clean markers
    verify markers-no-incarnation "-DNO_INCARNATION $marker_bounds" "-DSAFETY -DBFS -DMEMLIM=2000"
    expect_violation markers-no-incarnation "-DNO_INCARNATION $marker_bounds" liveHolderTakenEarly
    ;;
*)
    echo "run-spin: unknown mode $mode" >&2
    exit 2
    ;;
esac
