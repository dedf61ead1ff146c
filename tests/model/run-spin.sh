#!/usr/bin/env bash
# Model-checks tests/model/lease.pml with Spin (docs/lease-runtime.md, "The protocol,
# model-checked"). One mode a run:
#
#   project        this project's statements, searched exhaustively: must end with no error, with
#                  the whole state space searched (no depth or memory cut-off)
#   literal        ADR-114's literal statements: must yield the duplicate token, and, with that
#                  check left out, the double fence it leads to; each trail must replay
#   clock-behind   this project's statements with the standby's clock behind by the failover's
#                  length: must yield the duplicate token (the amendment's assumption broken)
#   liveness       this project's statements under weak fairness: a dead holder's role is taken
#                  (LTL, no acceptance cycle), once with the failover and once with the pause
#
#   The takeover at process death with a repairable marker (migrations 0179 and 0180, issue 30),
#   four runs, each exhaustive and then its counterexamples (each trail must replay):
#   markers          markers terminated twice while their processes live: no error; without the
#                    grace and without the self-protection, two replicas' work overlaps; without
#                    the repair, a live, connected holder loses its tick; an early take of a dead
#                    holder, and a repaired tick completing, are both reachable
#   markers-restart  a restart or lossless failover (every marker ended, a new incarnation) and a
#                    termination: no error; without the incarnation test a live holder is taken
#   markers-freeze   a freeze and a termination: no error, the exception bounded; without the
#                    gate's freshness test a resumed holder starts a claim of a taken row; the
#                    exception (a frozen holder taken early) is reachable
#   markers-switch   the early_take switch flipped off and on, and a termination: no error
#
#   markers-gaps     (by hand, not in CTest) what the protocol does not cover: a termination while
#                    the holder is cut off, a freeze across a termination and a restart, and a
#                    lossy failover: each must yield its counterexample
#
# usage: run-spin.sh MODE MODEL.pml WORKDIR
set -euo pipefail

if (($# != 3)); then
    echo "usage: $0 project|literal|clock-behind|liveness|markers|markers-restart|" \
        "markers-freeze|markers-switch|markers-gaps MODEL.pml WORKDIR" >&2
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
        "$(grep -oE 'depth reached [0-9]+' "$dir/out.txt");" \
        "$(grep -E 'total actual memory usage' "$dir/out.txt" | xargs)"
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
    # Exhaustive: -DSAFETY (assertions and invariants only), never bitstate hashing, and no
    # -DCOLLAPSE: on this model it saves a fifth of the memory and doubles the time. -m is far
    # above the depth reached, so no path is cut short.
    verify project "${bounds[*]}" "-DSAFETY -DMEMLIM=2000" -m2000000
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
markers | markers-restart | markers-freeze | markers-switch | markers-gaps)
    # Bounds: two replicas, no pause (leader_pause clears the holder and the expiry, so a paused row
    # is never taken early; the project run checks the pause). Failovers lose nothing (LAG 0: a
    # restart, a crash restart, a synchronous standby): with an asynchronous standby the work of
    # two replicas can overlap on the TTL path as well, until the old holder's next RENEW
    # (markers-gaps).
    # Replicas cut off from the server are left out (CUTS 0): a cut holder is a holder whose
    # statements fail, which every run has at every step, except that it hears nothing of its
    # marker's end, which the protocol assumes happens only after its abandon; markers-gaps drops
    # that assumption. Each exhaustive run stays under 4 GB (-DMEMLIM=4000, which fails the run if
    # reached; as in project, no -DCOLLAPSE); the counterexamples search breadth-first (shortest
    # trails), and as each search takes a second or less, their verifiers are compiled
    # unoptimised (-O0, after verify's -O2), which takes a fifth of the time.
    m="-DMARKERS -DNREP=2 -DLAG=0 -DPAUSES=0 -DCUTS=0"
    exhaustive="-DSAFETY -DMEMLIM=4000"
    bfs="-DSAFETY -DBFS -DMEMLIM=2000 -O0"
    case $mode in
    markers)
        b="$m -DFAILOVERS=0 -DFREEZES=0 -DFLIPS=0 -DMARKER_LOSSES=2"
        verify markers "$b" "$exhaustive" -m2000000 -w25
        expect_clean markers
        for mutant in NO_GRACE:twoReplicasWork NO_SELF_PROTECTION:twoReplicasWork \
            NO_REPAIR:repairableTickCancelled REACH_DEAD_TAKEN_EARLY:deadHolderTakenEarly \
            REACH_REPAIRED_TICK_COMPLETES:repairedTickCompletes; do
            name=markers-$(echo "${mutant%%:*}" | tr 'A-Z_' 'a-z-')
            verify "$name" "-D${mutant%%:*} $b" "$bfs"
            expect_violation "$name" "-D${mutant%%:*} $b" "${mutant##*:}"
        done
        ;;
    markers-restart)
        b="$m -DFAILOVERS=1 -DFREEZES=0 -DFLIPS=0 -DMARKER_LOSSES=1"
        verify markers-restart "$b" "$exhaustive" -m2000000 -w26
        expect_clean markers-restart
        verify markers-no-incarnation "-DNO_INCARNATION $b" "$bfs"
        expect_violation markers-no-incarnation "-DNO_INCARNATION $b" liveHolderTakenEarly
        ;;
    markers-freeze)
        b="$m -DFAILOVERS=0 -DFREEZES=1 -DFLIPS=0 -DMARKER_LOSSES=1"
        verify markers-freeze "$b" "$exhaustive" -m2000000 -w26
        expect_clean markers-freeze
        verify markers-no-fresh-proof "-DNO_FRESH_PROOF $b" "$bfs"
        expect_violation markers-no-fresh-proof "-DNO_FRESH_PROOF $b" takenHolderStartsClaim
        verify markers-reach-frozen "-DREACH_FROZEN_HOLDER_TAKEN $b" "$bfs"
        expect_violation markers-reach-frozen "-DREACH_FROZEN_HOLDER_TAKEN $b" \
            frozenHolderTakenEarly
        ;;
    markers-switch)
        b="$m -DFAILOVERS=0 -DFREEZES=0 -DFLIPS=2 -DMARKER_LOSSES=1"
        verify markers-switch "$b" "$exhaustive" -m2000000 -w25
        expect_clean markers-switch
        ;;
    markers-gaps)
        # A termination while the holder is cut off: its work runs on until its abandon.
        b="-DMARKERS -DNREP=2 -DLAG=0 -DPAUSES=0 -DCUTS=1 -DCUT_TERMINATION -DFAILOVERS=0"
        b="$b -DFREEZES=0 -DFLIPS=0 -DMARKER_LOSSES=1"
        verify gap-cut-termination "$b" "$bfs"
        expect_violation gap-cut-termination "$b" twoReplicasWork
        # A freeze across a termination, an early take and a restart: the resumed holder reads
        # the server's end, keeps the TTL rules, and works on (and its gate lets claims start, the
        # key's incarnation being over) until its RENEW on the new server finds the row taken.
        # The amendment -DSTALE_END_REPAIRED closes it: the same bounds, exhaustive, find no error
        # (73,223,481 states, 11 GB, 9 minutes: not for CI; -DMEMLIM=15000 -w27).
        b="$m -DFAILOVERS=1 -DFREEZES=1 -DFLIPS=0 -DMARKER_LOSSES=1"
        verify gap-freeze-restart "$b" "$bfs"
        expect_violation gap-freeze-restart "$b" resumedHolderWorksOn
        # A lossy failover (an asynchronous standby) on the TTL path: a lost ACQUIRE.
        b="-DMARKERS -DNREP=2 -DLAG=1 -DPAUSES=0 -DCUTS=0 -DFAILOVERS=1 -DFREEZES=0 -DFLIPS=0"
        b="$b -DMARKER_LOSSES=0"
        verify gap-lossy-failover "$b" "$bfs"
        expect_violation gap-lossy-failover "$b" twoReplicasWork
        ;;
    esac
    ;;
*)
    echo "run-spin: unknown mode $mode" >&2
    exit 2
    ;;
esac
