#!/usr/bin/env bash
# The chart benchmark, old against new in one run on one machine: builds console-chartbench from a
# base revision (in a temporary git worktree) and from this working tree, runs them alternately
# (ABBA order per round, so neither always runs on the warmer or quieter machine) and prints each
# design's figures for "24 h, append+refresh+paint" (the full frame) and the ratio new / old.
#   bash scripts/bench-chart.sh [--base REV] [--rounds N] [--iterations N] [--preset ci|release]
#                               [--json FILE] [--keep]
# --base defaults to the commit before this script arrived, i.e. the chart as it was before the
# work the script was written to measure. Runs use QT_QPA_PLATFORM=offscreen. Builds use -j2 (set
# JOBS to change it); the temporary worktree lives under build/ so ccache (base_dir) shares
# objects with the other builds, and is removed afterwards unless --keep.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

base=
rounds=3
iterations=200
preset=ci
json=
keep=false
while (($#)); do
    case $1 in
    --base) base=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --keep) keep=true; shift ;;
    -h | --help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "bench-chart: unknown argument $1" >&2; exit 2 ;;
    esac
done
jobs=${JOBS:-2}

if [[ -z $base ]]; then
    added=$(git log --diff-filter=A --format=%H -- scripts/bench-chart.sh | tail -n 1)
    if [[ -n $added ]]; then
        base=$(git rev-parse "$added^")
    else
        base=$(git rev-parse HEAD) # the script is not committed yet: HEAD is the old design
    fi
fi
base=$(git rev-parse --verify "$base^{commit}")
head=$(git rev-parse HEAD)
dirty=$(git status --porcelain --untracked-files=no | head -c 1)

launcher=()
if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
build_target() { # source dir
    cmake -S "$1" --preset "$preset" "${launcher[@]}" >/dev/null
    cmake --build "$1/build/$preset" --target console-chartbench -j "$jobs"
}

mkdir -p "$root/build"
work=$(mktemp -d "$root/build/bench-chart.XXXXXX")
cleanup() {
    if ! $keep; then
        git worktree remove --force "$work/base" 2>/dev/null || true
        rm -rf "$work"
    else
        echo "bench-chart: kept $work"
    fi
}
trap cleanup EXIT

echo "bench-chart: building the base ${base:0:12} in $work/base"
git worktree add --detach "$work/base" "$base" >/dev/null
build_target "$work/base"
echo "bench-chart: building the working tree (${head:0:12}${dirty:+ with changes})"
build_target "$root"
old=$work/base/build/$preset/bench/console/console-chartbench
new=$root/build/$preset/bench/console/console-chartbench

export QT_QPA_PLATFORM=offscreen
run() { # design round
    local bin=$old
    [[ $1 == new ]] && bin=$new
    echo "bench-chart: round $2, $1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
    "$bin" --iterations "$iterations" --json "$work/$1-$2.json" >"$work/$1-$2.txt"
}
for ((r = 1; r <= rounds; ++r)); do
    if ((r % 2)); then
        run old "$r"
        run new "$r"
    else
        run new "$r"
        run old "$r"
    fi
done

python3 - "$work" "$rounds" "$base" "$head" "${dirty:+dirty}" "$json" "$iterations" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, os, platform, statistics, sys

work, rounds, base, head, dirty, out, iterations, load = sys.argv[1:9]
rounds = int(rounds)
case = ("24 h", "append+refresh+paint")


def figures(design):
    runs = []
    for r in range(1, rounds + 1):
        with open(os.path.join(work, f"{design}-{r}.json")) as f:
            data = json.load(f)
        row = next(x for x in data["results"] if (x["window"], x["update"]) == case)
        runs.append({k: row[k] for k in ("median_ms", "p95_ms", "max_ms", "billing_points")}
                    | {"all": data["results"]})
    return runs


designs = {d: figures(d) for d in ("old", "new")}
summary = {}
for design, runs in designs.items():
    summary[design] = {
        "median_ms": statistics.median(r["median_ms"] for r in runs),
        "p95_ms": statistics.median(r["p95_ms"] for r in runs),
        "worst_p95_ms": max(r["p95_ms"] for r in runs),
        "max_ms": max(r["max_ms"] for r in runs),
    }
print(f"\n24 h window, append + refresh + draw of chart and holder timeline "
      f"({iterations} updates per run, {rounds} runs each; ms)")
print(f"{'':14}{'median':>9}{'p95':>9}{'worst p95':>11}{'max':>9}   per run (median / p95 / max)")
for design, label in (("old", f"old {base[:10]}"), ("new", f"new {head[:10]}{'+' if dirty else ''}")):
    s = summary[design]
    runs = ", ".join(f"{r['median_ms']:.2f} / {r['p95_ms']:.2f} / {r['max_ms']:.2f}"
                     for r in designs[design])
    print(f"{label:14}{s['median_ms']:9.2f}{s['p95_ms']:9.2f}{s['worst_p95_ms']:11.2f}"
          f"{s['max_ms']:9.2f}   {runs}")
ratio = {k: summary["new"][k] / summary["old"][k] for k in summary["old"]}
print(f"{'new / old':14}{ratio['median_ms']:9.2f}{ratio['p95_ms']:9.2f}"
      f"{ratio['worst_p95_ms']:11.2f}{ratio['max_ms']:9.2f}")
print(f"load average at the end: {load}")

if out:
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    doc = {
        "benchmark": "console-chartbench, old against new",
        "case": {"window": case[0], "update": case[1]},
        "command": f"bash scripts/bench-chart.sh --base {base} --rounds {rounds} "
                   f"--iterations {iterations}",
        "base": base,
        "head": head + ("+dirty" if dirty else ""),
        "machine": {"cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release()},
        "load_average_at_end": load,
        "summary": summary | {"ratio_new_over_old": ratio},
        "runs": designs,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=4)
        f.write("\n")
    print(f"bench-chart: wrote {out}")
PY
