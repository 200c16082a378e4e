#!/usr/bin/env python3
"""Measures the retry state shared through PostgreSQL, against a server this
script starts and removes again:

1. the `fleet.*` benchmarks of the FleetBenchmarks target, run by
   package-benchmark through Benchmarks/run, PostgreSQL store against the
   in-memory store in the same run: admission + decisions, a paid retry,
   round trips at 5 % retries, cooldown and breaker propagation between two
   connections, and 64 concurrent retrying requests with the database
   20, 50 and 100 ms away (a latency proxy);
2. database round trips per 1,000 requests at a 5 % retry rate, counted by
   the server (pg_stat_statements) and by the store's own counter, with one
   `fleet-probe load` process;
3. cooldown propagation between OS processes: one `fleet-probe send` answers
   a request with `429, Retry-After: 30` every 50 ms, several
   `fleet-probe observe` processes on the same key time when their
   admission gate shows it.

    Benchmarks/Scripts/fleet.py                 everything
    Benchmarks/Scripts/fleet.py --skip-benchmarks --rounds 50
    Benchmarks/Scripts/fleet.py --only-benchmarks --filter 'fleet.slow-database.*'

Needs PostgreSQL's server binaries (initdb, pg_ctl, psql: Debian's
postgresql package); without them it says so and measures nothing.

Starting the server repeats, in a few lines, what the test helper
Tests/PostgresTestServer does in Swift: that helper is a target of the main
package's tests, not a product the Benchmarks package can depend on, and a
script has to hand the server to separate processes anyway.
"""
import argparse
import json
import os
import pwd
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
SERVER_USER = "retrypolicy"  # the unprivileged user the tests use as well
DATABASE_USER = "fleet"
sys.path.insert(0, HERE)
import report  # noqa: E402  (machine description)


def binaries():
    root = "/usr/lib/postgresql"
    versions = sorted((int(v) for v in os.listdir(root) if v.isdigit()), reverse=True) if os.path.isdir(root) else []
    candidates = [f"{root}/{v}/bin" for v in versions] + os.environ.get("PATH", "").split(":")
    for directory in candidates:
        if all(os.access(os.path.join(directory, tool), os.X_OK) for tool in ("initdb", "pg_ctl", "psql")):
            return directory
    return None


class Server:
    """initdb into a temporary directory, pg_ctl start on a free loopback
    port with trust authentication, as an unprivileged user when run as
    root (PostgreSQL refuses root)."""

    def __init__(self, bin_dir, fsync):
        self.bin = bin_dir
        self.base = tempfile.mkdtemp(prefix="retry-policy-fleet-")
        self.data = os.path.join(self.base, "data")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.as_user = []
        if os.geteuid() == 0:
            try:
                entry = pwd.getpwnam(SERVER_USER)
            except KeyError:
                subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                                "--shell", "/usr/sbin/nologin", SERVER_USER], check=True)
                entry = pwd.getpwnam(SERVER_USER)
            os.chown(self.base, entry.pw_uid, entry.pw_gid)
            self.as_user = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--"]
        self.run("initdb", "-D", self.data, "-U", DATABASE_USER, "--auth=trust", "--no-sync", "-E", "UTF8",
                 "--locale=C")
        options = (f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 "
                   f"-c shared_preload_libraries=pg_stat_statements -c fsync={'on' if fsync else 'off'}")
        self.run("pg_ctl", "-D", self.data, "-l", os.path.join(self.base, "server.log"), "-o", options,
                 "-w", "-t", "30", "start")
        self.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        self.url = f"postgres://{DATABASE_USER}@127.0.0.1:{self.port}/postgres"

    def run(self, tool, *arguments):
        subprocess.run(self.as_user + [os.path.join(self.bin, tool), *arguments], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"}, cwd="/tmp")

    def psql(self, sql):
        return subprocess.run([os.path.join(self.bin, "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                               DATABASE_USER, "-d", "postgres", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                               "-c", sql], check=True, capture_output=True, text=True).stdout

    def stop(self):
        try:
            self.run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "30", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.base, ignore_errors=True)


def build_probe():
    print("building fleet-probe (release)...", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "fleet-probe"], cwd=PACKAGE, check=True,
                   stdout=subprocess.DEVNULL)
    path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=PACKAGE, check=True,
                          capture_output=True, text=True).stdout.strip()
    return os.path.join(path, "fleet-probe")


def percentile(sorted_values, fraction):
    """Nearest-rank percentile."""
    rank = max(1, -(-len(sorted_values) * fraction // 1))
    return sorted_values[int(rank) - 1]


def expect_line(process, wanted):
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"fleet-probe ended before printing '{wanted}'")
        if line.strip() == wanted:
            return


def round_trips(server, probe, per_second, requests, retry_every):
    key = f"load-{random.getrandbits(32)}"
    process = subprocess.Popen([probe, "load", "--url", server.url, "--key", key, "--requests", str(requests),
                                "--retry-every", str(retry_every), "--per-second", str(per_second)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    expect_line(process, "ready")
    server.psql("SELECT pg_stat_statements_reset()")
    process.stdin.write("go\n")
    process.stdin.flush()
    counters = None
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("fleet-probe load ended early")
        if line.startswith("{"):
            counters = json.loads(line)
        if line.strip() == "done":
            break
    # What the server executed meanwhile, except this query and the reset.
    rows = server.psql("SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
                       "WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC")
    process.stdin.write("quit\n")
    process.stdin.flush()
    process.wait(timeout=30)
    statements = []
    for line in rows.splitlines():
        calls, query = line.split("\t", 1)
        statements.append((int(calls), query))
    return counters, statements


def propagation(server, probe, observers, rounds, interval_ms):
    key = f"cooldown-{random.getrandbits(32)}"
    stop_file = os.path.join(server.base, f"stop-{key}")
    watchers = [subprocess.Popen([probe, "observe", "--url", server.url, "--key", key, "--stop-file", stop_file],
                                 stdout=subprocess.PIPE, text=True) for _ in range(observers)]
    for watcher in watchers:
        expect_line(watcher, "ready")
    sender = subprocess.run([probe, "send", "--url", server.url, "--key", key, "--rounds", str(rounds),
                             "--interval-ms", str(interval_ms)], check=True, capture_output=True, text=True)
    time.sleep(1.0)
    open(stop_file, "w").close()
    sent = []
    for line in sender.stdout.splitlines():
        parts = line.split()
        if parts[0] == "sent":
            sent.append((int(parts[1]), int(parts[2])))
    seen_by = []
    for watcher in watchers:
        output, _ = watcher.communicate(timeout=30)
        seen_by.append([(int(p[1]), int(p[2])) for p in (line.split() for line in output.splitlines())
                        if p and p[0] == "seen"])
    latencies, missed = [], 0
    for until, sent_at in sent:
        for seen in seen_by:
            # The first moment this observer's admission would wait at
            # least until this round's end.
            first = next((at for observed_until, at in seen if observed_until >= until), None)
            if first is None:
                missed += 1
            else:
                latencies.append((first - sent_at) / 1e6)
    latencies.sort()
    return latencies, missed, len(sent), sender.stdout.splitlines()[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-benchmarks", action="store_true", help="only the round trips and the propagation")
    parser.add_argument("--only-benchmarks", action="store_true", help="only the FleetBenchmarks target (1.)")
    parser.add_argument("--filter", help="regular expression of the fleet benchmarks to run "
                        "(default: all of them), e.g. 'fleet.slow-database.*'")
    parser.add_argument("--rounds", type=int, default=200, help="cooldown propagation rounds (default 200)")
    parser.add_argument("--observers", type=int, default=3, help="observing processes (default 3)")
    parser.add_argument("--interval-ms", type=int, default=50, help="time between two cooldowns (default 50)")
    parser.add_argument("--no-fsync", action="store_true", help="run the server with fsync=off (default: on)")
    arguments = parser.parse_args()

    bin_dir = binaries()
    if bin_dir is None:
        print("note: skipping the fleet measurements: PostgreSQL server binaries (initdb, pg_ctl, psql) not found "
              "in /usr/lib/postgresql/*/bin or PATH; install Debian's postgresql package")
        return 0

    probe = build_probe()
    server = Server(bin_dir, fsync=not arguments.no_fsync)
    try:
        version = server.psql("SHOW server_version").strip()
        print(f"machine: {report.machine()}")
        print(f"server: PostgreSQL {version} on 127.0.0.1, fsync={'off' if arguments.no_fsync else 'on'}, "
              f"otherwise default settings")
        subprocess.run([probe, "init", "--url", server.url], check=True)

        if not arguments.skip_benchmarks:
            print("\n== 1. admission + decisions, PostgreSQL store against in-memory store (same run)", flush=True)
            env = dict(os.environ, RETRY_POLICY_BENCH_POSTGRES_URL=server.url)
            selection = ["--filter", arguments.filter] if arguments.filter else []
            subprocess.run([os.path.join(PACKAGE, "run"), "--target", "FleetBenchmarks", *selection], env=env,
                           check=True)
        if arguments.only_benchmarks:
            return 0

        print("\n== 2. database round trips per 1,000 requests, 5 % retried once then succeeding", flush=True)
        for per_second in (1000, 100):
            counters, statements = round_trips(server, probe, per_second, 1000, 20)
            total = sum(calls for calls, _ in statements)
            print(f"-- 1,000 requests at {per_second}/s in {counters['seconds']:.2f} s, one process: "
                  f"{total} statements executed by the server (pg_stat_statements); the store counted "
                  f"{counters['round_trips']} round trips = {counters['withdrawals']} withdrawals + "
                  f"{counters['refund_writes']} refund writes (+ {counters['cooldowns_published']} cooldowns, "
                  f"{counters['fallbacks']} fallbacks, {counters['refusals']} refusals)")
            for calls, query in statements:
                print(f"   {calls:5d}  {query[:110]}")

        print(f"\n== 3. cooldown propagation across processes: 1 sender, {arguments.observers} observers, "
              f"{arguments.rounds} rounds every {arguments.interval_ms} ms", flush=True)
        latencies, missed, rounds, summary = propagation(server, probe, arguments.observers, arguments.rounds,
                                                         arguments.interval_ms)
        if not latencies:
            print(f"no cooldown was observed ({missed} missed)")
            return 1
        print(f"-- {len(latencies)} observations of {rounds} cooldowns ({missed} never seen); sender: {summary}")
        print(f"   median {statistics.median(latencies):.2f} ms, p90 {percentile(latencies, 0.90):.2f} ms, "
              f"p99 {percentile(latencies, 0.99):.2f} ms, max {latencies[-1]:.2f} ms, min {latencies[0]:.2f} ms "
              f"(from just before the sender's decision to the observer's admission showing it; "
              f"observers poll every 100 us)")
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        return 1 if missed else 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
