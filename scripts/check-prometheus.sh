#!/usr/bin/env bash
# Checks the operator's kit in resources/prometheus/ (docs/runbook.md) with Debian's promtool:
#   static                      promtool check rules and test rules; the Grafana dashboard is JSON,
#                               its PromQL parses, and every hardcount_leader name its panels and
#                               the rules use is a metric engine/core/metrics/leasemetrics.cpp defines
#                               or a name the rules record
#   scrape REPLICA LEADERCTL    a real leader-replica (the given binary) against a fresh database
#                               on the test servers (LEADER_TEST_* from scripts/test-servers.sh),
#                               migrated with the given leaderctl: its /metrics after the first
#                               ticks passes `promtool check metrics` with no lint finding, and
#                               carries every metric the panels and rules use
# CTest runs both (tests/ops); by hand: bash scripts/check-prometheus.sh static
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=$root/resources/prometheus
rules=$kit/leader-leases.rules.yml
rule_tests=$kit/leader-leases.rules.test.yml
dashboard=$kit/leader-leases.grafana.json

usage() {
    echo "usage: $0 static | scrape LEADER_REPLICA LEADERCTL" >&2
    exit 2
}
command -v promtool >/dev/null ||
    { echo "check-prometheus: no promtool (Debian package prometheus; scripts/setup-deps.sh)" >&2; exit 1; }

work=$(mktemp -d /tmp/leader-check-prometheus.XXXXXX)
cleanup_steps=()
cleanup() {
    local index
    for ((index = ${#cleanup_steps[@]} - 1; index >= 0; index--)); do
        eval "${cleanup_steps[index]}" || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# check_names KNOWN [--exprs-to FILE]: prints the hardcount_leader names that the rules file and the
# panels' expressions use and that are neither in the file KNOWN (one name a line) nor recorded by
# the rules, and exits 1 if there is any. With --exprs-to FILE it also
# writes every panel expression, Grafana variables replaced, as recording rules promtool can parse.
check_names() {
    python3 - "$rules" "$dashboard" "$@" <<'PY'
import json, re, sys

rules_path, dashboard_path, known_path, *options = sys.argv[1:]
exprs_to = options[1] if options[:1] == ["--exprs-to"] else None
known = {line.strip() for line in open(known_path, encoding="utf-8") if line.strip()}
name = re.compile(r"\bhardcount_leader[a-zA-Z0-9_:]*")

# The whole rules file, comments included: a comment naming a metric that does not exist misleads.
rules_text = open(rules_path, encoding="utf-8").read()
recorded = set(re.findall(r"^\s*-?\s*record:\s*(\S+)", rules_text, re.M))

dashboard = json.load(open(dashboard_path, encoding="utf-8"))
panel_exprs = []
def walk(panels):
    for panel in panels:
        walk(panel.get("panels", []))
        for target in panel.get("targets", []):
            panel_exprs.append((panel["title"], target["expr"]))
walk(dashboard["panels"])
if not panel_exprs:
    sys.exit("check-prometheus: the dashboard has no panel with an expression")

missing = {}
for where, exprs in (("rules", [(rules_path, rules_text)]), ("dashboard", panel_exprs)):
    for title, expr in exprs:
        for used in name.findall(expr):
            if used not in known and used not in recorded:
                missing[f"{where}: {title}: {used}"] = True
for line in missing:
    print(f"check-prometheus: unknown metric in {line}", file=sys.stderr)

if exprs_to:
    with open(exprs_to, "w", encoding="utf-8") as out:
        out.write("groups:\n  - name: dashboard-panels\n    rules:\n")
        for index, (title, expr) in enumerate(panel_exprs):
            expr = expr.replace("$__rate_interval", "1m").replace("$job", ".*")
            out.write(f"      - record: panel_{index}\n        expr: {json.dumps(expr)}\n")
print(f"check-prometheus: the names in {len(panel_exprs)} panel expressions and in the rules"
      f" ({len(set(name.findall(rules_text)))}) checked against {len(known)} metric names")
sys.exit(1 if missing else 0)
PY
}

static() {
    promtool check rules "$rules"
    (cd "$kit" && promtool test rules "$(basename "$rule_tests")")
    python3 -m json.tool "$dashboard" >/dev/null
    # The metrics the engine defines: its name constants, and for each constant passed to
    # histogram(), the three series names a histogram has.
    local source=$root/engine/core/metrics/leasemetrics.cpp constant histogram
    grep -o '"hardcount_leader_[a-z_]*"' "$source" | tr -d '"' | sort -u >"$work/defined"
    grep -o 'histogram([A-Za-z]*' "$source" | cut -d'(' -f2 | sort -u >"$work/histograms"
    while read -r constant; do
        histogram=$(grep -o "$constant = \"hardcount_leader_[a-z_]*\"" "$source" | cut -d'"' -f2)
        [[ -n $histogram ]] || { echo "check-prometheus: no name for $constant in $source" >&2; exit 1; }
        printf '%s_bucket\n%s_sum\n%s_count\n' "$histogram" "$histogram" "$histogram"
    done <"$work/histograms" >>"$work/defined"
    [[ -s $work/defined ]] || { echo "check-prometheus: no metric names in $source" >&2; exit 1; }
    check_names "$work/defined" --exprs-to "$work/panels.rules.yml"
    # Parsing the panels' PromQL as recording rules catches a syntax error before a Grafana does.
    promtool check rules "$work/panels.rules.yml"
    echo "check-prometheus: static checks passed"
}

# shellcheck source=scripts/free-port.sh
source "$(dirname "${BASH_SOURCE[0]}")/free-port.sh"

fetch() {
    python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())' "$1"
}

scrape() {
    local replica=$1 leaderctl=$2
    [[ -x $replica && -x $leaderctl ]] || { echo "check-prometheus: no binary at $replica or $leaderctl" >&2; exit 1; }
    [[ -n ${LEADER_TEST_ADMIN_URL:-} ]] ||
        { echo "check-prometheus: scrape needs the test servers (scripts/test.sh, or source DIR/env after scripts/test-servers.sh start DIR)" >&2; exit 1; }
    local database
    database=promscrape_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    psql -X -q -v ON_ERROR_STOP=1 "$LEADER_TEST_ADMIN_URL" -c "CREATE DATABASE $database OWNER lt_owner"
    cleanup_steps+=("psql -X -q \"\$LEADER_TEST_ADMIN_URL\" -c 'DROP DATABASE IF EXISTS $database WITH (FORCE)' >/dev/null")
    # The password in the environment, not in the URLs: those show in ps.
    export PGPASSWORD=$LEADER_TEST_PASSWORD
    local base=postgresql://%s@$LEADER_TEST_HOST:$LEADER_TEST_PG_PORT/$database
    # shellcheck disable=SC2059 # the URL is the format, the login its one argument
    "$leaderctl" migrate --demo --database "$(printf "$base" lt_owner)" >/dev/null

    # The replica runs as the app login, as in production; the demo profile's outbox ticks take
    # about a second, dunning's three (long enough for a RENEW), billing's thirty.
    local port pid="" url ready=0
    for _ in 1 2 3; do
        port=$(free_port $((59100 + RANDOM % 400)))
        # shellcheck disable=SC2059
        # --drain-on-sigterm off: the cleanup's SIGTERM need not wait for billing's tick.
        "$replica" --database "$(printf "$base" lt_app)" --id prometheus-check \
            --metrics-port "$port" --metrics-address 127.0.0.1 --drain-on-sigterm off \
            >"$work/replica.out" 2>"$work/replica.err" &
        pid=$!
        cleanup_steps+=("kill -TERM $pid 2>/dev/null && wait $pid")
        url=http://127.0.0.1:$port/metrics
        # Ready when every family the panels and rules use is there: the histograms appear with
        # the first ACQUIRE, RENEW and completed tick, which take a few seconds.
        for _ in $(seq 1 40); do
            kill -0 "$pid" 2>/dev/null || break
            if fetch "$url" >"$work/metrics" 2>/dev/null &&
                grep -q '^hardcount_leader_renew_seconds_count' "$work/metrics" &&
                grep -q '^hardcount_leader_tick_duration_seconds_count' "$work/metrics" &&
                grep -q '^hardcount_leader_last_tick_age_seconds' "$work/metrics"; then
                ready=1
                break 2
            fi
            sleep 0.5
        done
        kill -0 "$pid" 2>/dev/null && break # running but not ready in 20 s: no retry helps
        wait "$pid" || true
        grep -q 'port\|address' "$work/replica.err" || break
        echo "check-prometheus: port $port taken, trying another" >&2
    done
    if ((!ready)); then
        echo "check-prometheus: leader-replica's /metrics not complete within 20 s; its log:" >&2
        tail -n 20 "$work/replica.err" >&2
        [[ -s $work/metrics ]] && cat "$work/metrics" >&2
        exit 1
    fi
    # A second scrape: the one checked, with every series in place.
    fetch "$url" >"$work/metrics"
    local lint status=0
    lint=$(promtool check metrics <"$work/metrics" 2>&1) || status=$?
    if ((status != 0)) || [[ -n $lint ]]; then
        echo "check-prometheus: promtool check metrics on leader-replica's /metrics (exit $status):" >&2
        echo "$lint" >&2
        exit 1
    fi
    echo "check-prometheus: promtool check metrics: $(grep -c '^hardcount_leader' "$work/metrics") samples, no finding"
    # Every name the panels and rules use is in the real scrape.
    grep -o '^hardcount_leader_[a-z_]*' "$work/metrics" | sort -u >"$work/scraped"
    check_names "$work/scraped"
    echo "check-prometheus: scrape checks passed"
}

case ${1:-} in
static) static ;;
scrape)
    (($# == 3)) || usage
    scrape "$2" "$3"
    ;;
*) usage ;;
esac
