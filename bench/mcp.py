#!/usr/bin/env python3
"""tracesql benchmark: the MCP server's calls, as an agent makes them.

One `tracesql mcp` session over stdio (JSON-RPC lines, the standard library
only, so the number is the server's and not a client SDK's):
  * open_trace on the trace (the load, paid once per session);
  * --calls `sql` calls of a simple query (a filtered count over kernels), and
    of a grouped one (kernel time by op over kernels), each timed from the
    request written to the reply read: median and 90th percentile;
  * a `report gpu_timeline` call;
against baselines measured in the same run on the same file:
  * `tracesql query TRACE -e SQL` (the CLI, which loads the trace every time:
    what an agent shelling out to the CLI pays per question);
  * the `SELECT 1` round trip through the server (the protocol's floor).

Usage: bench/mcp.py [--bin target/release/tracesql] [--calls 30] [TRACE]
Default trace: the largest conformance trace (h100 google_owlv2).
Build first: cargo build --release
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from run import DEFAULT_TRACE, ROOT

SIMPLE = "SELECT count(*) AS n FROM kernels WHERE dur > 10"
GROUPED = "SELECT op_name, count(*) AS kernels, sum(dur) AS us FROM kernels GROUP BY op_name ORDER BY us DESC LIMIT 10"


class Server:
    def __init__(self, binary, root):
        self.process = subprocess.Popen(
            [binary, "mcp", "--root", root],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 1
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def request(self, method, params):
        id_ = self.next_id
        self.next_id += 1
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                sys.exit(f"the server closed its output during {method}")
            message = json.loads(line)
            if message.get("id") == id_:
                if "error" in message:
                    sys.exit(f"{method}: {message['error']}")
                return message["result"]

    def timed_call(self, tool, arguments):
        start = time.perf_counter()
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        elapsed = time.perf_counter() - start
        if result.get("isError"):
            sys.exit(f"{tool}: {result['content'][0]['text']}")
        return elapsed

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def cli_seconds(binary, trace, sql, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([binary, "query", trace, "-e", sql, "--format", "csv"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release/tracesql"))
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("trace", nargs="?", default=DEFAULT_TRACE)
    args = parser.parse_args()
    trace = os.path.abspath(args.trace)
    binary = os.path.abspath(args.bin)

    server = Server(binary, os.path.dirname(trace))
    opened = server.timed_call("open_trace", {"path": os.path.basename(trace)})
    rows = []
    for name, sql in [("SELECT 1 (floor)", "SELECT 1"), ("simple: filtered count", SIMPLE), ("grouped: time by op", GROUPED)]:
        times = [server.timed_call("sql", {"query": sql}) for _ in range(args.calls)]
        rows.append((f"sql {name}", statistics.median(times), percentile(times, 0.9)))
    report = server.timed_call("report", {"name": "gpu_timeline"})
    server.close()
    cli = cli_seconds(binary, trace, SIMPLE, args.cli_runs)

    print(f"trace: {os.path.basename(trace)} ({os.path.getsize(trace) / 1e6:.1f} MB on disk)")
    print(f"binary: {binary}")
    print()
    print("| case | median | p90 | vs CLI query (same SQL, load included) |")
    print("|---|---|---|---|")
    print(f"| open_trace (the load, once per session) | {opened * 1000:.0f} ms | | {opened / cli:.2f}x |")
    for name, median, p90 in rows:
        print(f"| {name} | {median * 1000:.1f} ms | {p90 * 1000:.1f} ms | {median / cli:.3f}x |")
    print(f"| report gpu_timeline (first call) | {report * 1000:.0f} ms | | {report / cli:.2f}x |")
    print(f"| baseline: `tracesql query TRACE -e SIMPLE` (median of {args.cli_runs}) | {cli * 1000:.0f} ms | | 1x |")


if __name__ == "__main__":
    main()
