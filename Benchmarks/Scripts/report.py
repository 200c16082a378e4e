"""Turns package-benchmark's JMH export into the ratio table Benchmarks/run prints.

Benchmarks are named `<group>.<case>.engine` and `<group>.<case>.baseline`;
a pair gives a ratio of median wall-clock times (engine / baseline). An
engine may have further baselines, `<group>.<case>.baseline-<label>`, each
reported as a row `<group>.<case> vs <label>`. A benchmark without a twin is
reported on its own against an absolute target.
"""
import json
import os
import platform
import subprocess
import sys

# What one iteration of each benchmark does, and the target it is held to.
WORK = {
    "decision": "1,000 decisions (realistic mix)",
    "table.parity-diff": "2 decision tables (3,060 rows each) + diff",
    "table.lint-diff": "PolicyDiff.compare, iOS vs Android",
    "executor": "1 executed request, in a task of its own",
    "executor.success-in-one-task": "1,000 executed requests in one task",
    "executor.retry-3-attempts-in-one-task": "1,000 executed requests in one task",
    "corpus": "lint 1,000 policy files (extends, parity, stacks)",
    "budget-storm": "one outage storm: 10,000 clients over 10 s, 4 attempts, shared",
    "fleet.first-try-success": "1,000 first-try successes (admit + settle)",
    "fleet.retry": "1 request: 503, retry granted on the local view, 200",
    "fleet.decide-success": "1,000 x admit + decide(success)",
    "fleet.paid-retry": "1 retry paid through the budget (await decidePaying)",
    "fleet.closed-breaker": "1,000 x admit + record(success), closed breaker",
    "fleet.round-trips-5pct": "1,000 requests in ~1 s, 5 % retried once",
    "fleet.cooldown-propagation": "429 + Retry-After on one store until the other waits",
    "fleet.breaker-propagation": "open on one store, probe and close from the other",
    "fleet.slow-database": "64 concurrent requests 503, 503, 200 (RetryExecutor)",
}


def work(stem):
    if stem.startswith("fleet.slow-database-"):
        return WORK["fleet.slow-database"] + ", database " + stem.rsplit("-", 1)[1] + " round trip"
    return WORK.get(stem, WORK.get(stem.split(".")[0], ""))


# Metrics every benchmark has; anything else in a fleet benchmark's export
# is one of its own counters or timings (`Benchmark.measurement`).
STANDARD_METRICS = {"Time (wall clock)", "Time (total CPU)", "Malloc (total)", "Throughput (# / s)"}
# The project's targets for an engine against the baseline of the same run,
# by name prefix (the longest that matches): (largest ratio of medians,
# whether the engine must make 0 allocations). The executor's baseline is
# seed 003's `retry` with the same operation.
RATIO_TARGETS = {
    "decision": (1.1, True),
    "executor.success": (1.0, False),
    "executor.retry-3-attempts": (2.0, False),
}
# Targets against a labelled baseline, by (case, label); checked on the
# ratio alone.
LABELLED_RATIO_TARGETS = {}


def ratio_target(stem):
    matches = [prefix for prefix in RATIO_TARGETS if stem == prefix or stem.startswith(prefix + ".")
               or stem.startswith(prefix + "-")]
    return RATIO_TARGETS[max(matches, key=len)] if matches else None


ABSOLUTE_TARGETS_US = {"corpus": 300_000}
# Benchmarks whose iteration covers this many files, reported per file too.
FILES_PER_ITERATION = {"corpus": 1000}


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) // (1024 * 1024)} GiB"
    except OSError:
        pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{model}, {os.cpu_count()} cores, {memory}, {platform.system()} {platform.machine()}, "
            f"{swift[0] if swift else 'swift ?'}, load average {load:.1f}")


def main(paths):
    results = {}
    for path in paths:
        for element in json.load(open(path)):
            name = element["benchmark"].split(".", 3)[-1]  # package.benchmark.<target>.<name>
            secondary = element["secondaryMetrics"]
            wall = secondary["Time (wall clock)"]["scorePercentiles"]["50.0"]
            wall_p99 = secondary["Time (wall clock)"]["scorePercentiles"].get("99.0")
            mallocs = secondary.get("Malloc (total)", {}).get("scorePercentiles", {}).get("50.0")
            cpu = secondary.get("Time (total CPU)", {}).get("scorePercentiles", {}).get("50.0")
            custom = {metric: values["scorePercentiles"] for metric, values in secondary.items()
                      if metric not in STANDARD_METRICS and name.startswith(("fleet.", "budget-storm."))}
            results[name] = {"wall_us": wall, "wall_p99_us": wall_p99, "cpu_us": cpu, "mallocs": mallocs,
                             "iterations": element["measurementIterations"], "custom": custom}

    rows = []
    seen = set()
    for name in sorted(results):
        if name in seen:
            continue
        group = name.split(".")[0]
        if name.endswith(".engine") or name.rsplit(".", 1)[-1].startswith("baseline"):
            stem = name.rsplit(".", 1)[0]
            engine, baseline = results.get(stem + ".engine"), results.get(stem + ".baseline")
            labelled = sorted(n for n in results if n.startswith(stem + ".baseline-"))
            seen.update({stem + ".engine", stem + ".baseline"} | set(labelled))
            extra = [labelled_row(stem, other.rsplit(".baseline-", 1)[1], engine, results[other])
                     for other in labelled] if engine else []
            if not engine or not baseline:
                rows += extra
                continue
            ratio = engine["wall_us"] / baseline["wall_us"] if baseline["wall_us"] else float("inf")
            target = ratio_target(stem)
            if group in ABSOLUTE_TARGETS_US:
                limit = ABSOLUTE_TARGETS_US[group]
                rows.append((stem, work(stem), f"{engine['wall_us']:.1f}", f"{baseline['wall_us']:.1f}",
                             f"{ratio:.2f}x", fmt(engine["mallocs"]), fmt(baseline["mallocs"]),
                             f"engine < {limit / 1e6:g} s", "yes" if engine["wall_us"] < limit else "NO"))
                rows += extra
                continue
            if target is None:
                met, goal = "-", "-"
            else:
                limit, zero_mallocs = target
                malloc_ok = not zero_mallocs or engine["mallocs"] == 0
                met = "yes" if ratio <= limit and malloc_ok else "NO"
                goal = f"<= {limit}x" + (", 0 mallocs" if zero_mallocs else "")
            rows.append((stem, work(stem), us(engine["wall_us"]), us(baseline["wall_us"]),
                         f"{ratio:.2f}x", fmt(engine["mallocs"]), fmt(baseline["mallocs"]), goal, met))
            rows += extra
        else:
            seen.add(name)
            result = results[name]
            target = ABSOLUTE_TARGETS_US.get(group)
            met = "-" if target is None else ("yes" if result["wall_us"] < target else "NO")
            rows.append((name, work(name), f"{result['wall_us']:.1f}", "-", "-", fmt(result["mallocs"]), "-",
                         "-" if target is None else f"< {target / 1e6:g} s", met))

    header = ("benchmark", "one iteration", "engine p50 us", "baseline p50 us", "ratio", "engine mallocs",
              "baseline mallocs", "target", "met")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    print(f"machine: {machine()}")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
    for name in sorted(results):
        files = FILES_PER_ITERATION.get(name.split(".")[0])
        if files and name.endswith(".engine"):
            result = results[name]
            per_file_mallocs = "-" if result["mallocs"] is None else f"{result['mallocs'] / files:.0f}"
            cpu = "" if result["cpu_us"] is None else f" ({result['cpu_us'] / files:.1f} us CPU; {result['cpu_us']:.1f} us CPU per iteration)"
            print(f"{name.rsplit('.', 1)[0]} per file: {result['wall_us'] / files:.1f} us wall clock{cpu}, "
                  f"{per_file_mallocs} mallocs")
    failed = [row[0] for row in rows if row[-1] == "NO"]
    if failed:
        print(f"targets missed: {', '.join(failed)}")
    fleet_table(results)
    fleet_counters(results)


def fleet_counters(results):
    """The fleet benchmarks' own metrics (round trips, heartbeat lateness,
    propagation steps): median and maximum over the iterations."""
    lines = []
    for name in sorted(results):
        custom = results[name].get("custom") or {}
        # The JMH export carries every metric it has seen so far into later
        # benchmarks; keep only the ones this benchmark registered.
        wanted = next((metrics for prefix, metrics in CUSTOM_METRICS.items() if name.startswith(prefix)), ())
        shown = [f"{metric} p50 {fmt(custom[metric].get('50.0'))}, max {fmt(custom[metric].get('100.0'))}"
                 for metric in wanted if metric in custom]
        if shown:
            lines.append(f"{name}: wall clock p50 {us(results[name]['wall_us'])} us; " + "; ".join(shown))
    if lines:
        print()
        print("\n".join(lines))


CUSTOM_METRICS = {
    "fleet.slow-database-": ("heartbeat late (us)", "round trips", "withdrawals"),
    "fleet.round-trips-5pct": ("round trips", "withdrawals", "refund writes"),
    "fleet.breaker-propagation": ("opening seen (us)", "probe claim (us)", "closing seen (us)"),
    "budget-storm.": ("amplification (x1000)", "refused by the budget", "out of time"),
}


def labelled_row(stem, label, engine, baseline):
    """A row for an engine against one of its labelled baselines."""
    ratio = engine["wall_us"] / baseline["wall_us"] if baseline["wall_us"] else float("inf")
    target = LABELLED_RATIO_TARGETS.get((stem, label))
    met = "-" if target is None else ("yes" if ratio <= target else "NO")
    return (f"{stem} vs {label}", work(stem), us(engine["wall_us"]), us(baseline["wall_us"]),
            f"{ratio:.2f}x", fmt(engine["mallocs"]), fmt(baseline["mallocs"]),
            "-" if target is None else f"<= {target}x", met)


def fleet_table(results):
    """Median and p99 of the fleet pairs (PostgreSQL store against the
    in-memory store), which the table above shows only as medians."""
    stems = sorted({name.rsplit(".", 1)[0] for name in results if name.startswith("fleet.")})
    rows = []
    for stem in stems:
        engine, baseline = results.get(stem + ".engine"), results.get(stem + ".baseline")
        if not engine or not baseline:
            continue
        def ratio(key):
            if engine[key] is None or not baseline[key]:
                return "-"
            return f"{engine[key] / baseline[key]:.2f}x"
        rows.append((stem, work(stem), us(engine["wall_us"]), us(engine["wall_p99_us"]), us(baseline["wall_us"]),
                     us(baseline["wall_p99_us"]), ratio("wall_us"), ratio("wall_p99_us"), fmt(engine["mallocs"]),
                     fmt(baseline["mallocs"]), engine["iterations"], baseline["iterations"]))
    if not rows:
        return
    header = ("benchmark", "one iteration", "postgres p50 us", "postgres p99 us", "in-memory p50 us",
              "in-memory p99 us", "ratio p50", "ratio p99", "postgres mallocs", "in-memory mallocs",
              "postgres iterations", "in-memory iterations")
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    print()
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")


def us(value):
    if value is None:
        return "-"
    return f"{value:.1f}" if value >= 10 else f"{value:.3f}"


def fmt(value):
    return "-" if value is None else f"{value:g}"


if __name__ == "__main__":
    main(sys.argv[1:])
