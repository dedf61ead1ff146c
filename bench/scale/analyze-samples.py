#!/usr/bin/env python3
"""When the scale benchmark's statements were sent, from the samples scale-bench --keep-samples
leaves: how evenly the fleet's reads arrive (reads per 100 ms, and the lag at which that count
repeats itself most), the reads slower than 20 ms, the slowest ACQUIREs with the reads around them,
and how long after its due instant each tick started (the database's instants, from the hosts'
released and acquired lines, less the tick interval).

    python3 bench/scale/analyze-samples.py DIR [--phase ticks] [--skip 22] [--window 120]
        [--interval 1.0]

--skip: seconds from the phase's first statement to its window (the start spread plus the warm-up:
10 + 12 with the benchmark's defaults); --interval: the ticks' interval in seconds."""

import argparse
import bisect
import collections
import datetime
import glob
import json
import os
import statistics


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--phase", default="ticks")
    parser.add_argument("--skip", type=float, default=22.0)
    parser.add_argument("--window", type=float, default=120.0)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()

    samples = []  # (sent_ns, ms, kind)
    for path in glob.glob(os.path.join(args.directory, args.phase + "-h*.samples")):
        with open(path) as lines:
            for line in lines:
                fields = line.split()
                if len(fields) >= 3:
                    samples.append((int(fields[1]), float(fields[2]), fields[0]))
    if not samples:
        raise SystemExit(f"no {args.phase}-h*.samples in {args.directory}")
    samples.sort()
    begin = samples[0][0] + int(args.skip * 1e9)
    end = begin + int(args.window * 1e9)
    window = [s for s in samples if begin <= s[0] < end]
    reads = [s for s in window if s[2] == "read"]
    acquires = [s for s in window if s[2] == "acquire"]

    bins = collections.Counter((s[0] - begin) // 100_000_000 for s in reads)
    counts = [bins.get(i, 0) for i in range(int(args.window * 10))]
    mean = statistics.fmean(counts)
    spread = sum((c - mean) ** 2 for c in counts) or 1.0

    def autocorrelation(lag):
        return sum((counts[i] - mean) * (counts[i + lag] - mean)
                   for i in range(len(counts) - lag)) / spread

    lag = max(range(20, 80), key=autocorrelation)
    slow = [s for s in reads if s[1] > 20]
    print(f"reads: {len(reads)} in {args.window:.0f} s; per 100 ms p10 {percentile(counts, 0.1)}, "
          f"p50 {percentile(counts, 0.5)}, p90 {percentile(counts, 0.9)}, max {max(counts)}; "
          f"the count repeats most after {lag / 10:.1f} s (autocorrelation "
          f"{autocorrelation(lag):.2f}); {len(slow)} reads over 20 ms in "
          f"{len({(s[0] - begin) // 100_000_000 for s in slow})} spells of 100 ms")

    read_times = [s[0] for s in reads]
    print(f"ACQUIREs: {len(acquires)}; the slowest, with the reads sent within 200 ms of each:")
    for sent, ms, _ in sorted(sorted(acquires, key=lambda s: -s[1])[:8]):
        low = bisect.bisect_left(read_times, sent - 200_000_000)
        high = bisect.bisect_right(read_times, sent + 200_000_000)
        around = [reads[i][1] for i in range(low, high)] or [0.0]
        print(f"  at {(sent - begin) / 1e9:7.3f} s: {ms:6.2f} ms; reads around: {len(around)}, "
              f"median {statistics.median(around):.2f} ms, max {max(around):.2f} ms")

    events = []
    for path in glob.glob(os.path.join(args.directory, args.phase + "-h*.out")):
        with open(path) as lines:
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") in ("acquired", "released") and "db_time" in event:
                    instant = datetime.datetime.fromisoformat(
                        event["db_time"].replace("+00", "+00:00")).timestamp()
                    events.append((event["role"], instant, event["event"]))
    events.sort()
    late = [(after[1] - before[1] - args.interval) * 1000
            for before, after in zip(events, events[1:])
            if before[0] == after[0] and before[2] == "released" and after[2] == "acquired"]
    if late:
        print(f"ticks started after their due instant (ms): {len(late)}, "
              f"p50 {percentile(late, 0.5):.1f}, p90 {percentile(late, 0.9):.1f}, "
              f"max {max(late):.1f}")


if __name__ == "__main__":
    main()
