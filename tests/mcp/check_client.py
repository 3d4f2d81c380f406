#!/usr/bin/env python3
"""Drives `tracesql mcp` with the official MCP Python SDK (`mcp` on PyPI), as an
agent's client does, over stdio.

Checks, against the CLI's own answers on the same trace:
  * the tool list, resources and prompts;
  * open_trace on a shared trace (copied under a throwaway root), sql equal to
    `tracesql query`, report, analyze, describe_table, call_stack, kernels_of;
  * every forbidden statement and a path outside the root: each a tool error,
    nothing written, the server still serving.

With --transcript FILE it writes the calls and answers of one whole analysis
(the closing note shows it).

Usage: check_client.py --bin target/debug/tracesql TRACE
Needs: pip install mcp (.ci/run pins the version).
"""

import argparse
import asyncio
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

FAILURES = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)


def cli_csv(binary, args):
    out = subprocess.run([binary, *args, "--format", "csv"], check=True, capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if l and not l.startswith("==")]
    return list(csv.reader(io.StringIO("\n".join(lines))))


def rows(text):
    """A Markdown answer's table rows (header and rule skipped), cells trimmed."""
    table = [l for l in text.splitlines() if l.startswith("| ")]
    return [[c.strip() for c in l.strip("|").split(" | ")] for l in table[1:]]


async def run(binary, trace, transcript):
    log = []

    async def call(session, tool, arguments=None):
        result = await session.call_tool(tool, arguments or {})
        text = result.content[0].text if result.content else ""
        log.append((tool, arguments or {}, result.is_error, text))
        return text, bool(result.is_error)

    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.join(scratch, "root")
        os.mkdir(root)
        name = os.path.basename(trace)
        shutil.copy(trace, os.path.join(root, name))
        outside = os.path.join(scratch, "outside.json")
        shutil.copy(trace, outside)
        written = os.path.join(scratch, "written.csv")
        params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "tracesql", f"server is tracesql ({init.server_info.name})")
                tools = sorted(t.name for t in (await session.list_tools()).tools)
                check(tools == ["analyze", "call_stack", "collectives", "compare", "describe_table", "kernels_of",
                                "list_tables", "list_traces", "open_trace", "report", "sql"], f"tools: {tools}")

                text, error = await call(session, "open_trace", {"path": name, "name": "t"})
                check(not error and text.startswith("Opened **t**"), f"open_trace: {text[:120]}")

                sql = "SELECT count(*) AS kernels, count(DISTINCT name) AS names, CAST(round(sum(dur)) AS BIGINT) AS us FROM kernels"
                text, error = await call(session, "sql", {"query": sql})
                expected = cli_csv(binary, ["query", trace, "-e", sql])[1:]
                check(not error and rows(text) == expected, f"sql equals the CLI: {rows(text)} vs {expected}")

                text, error = await call(session, "report", {"name": "gpu_timeline"})
                expected = cli_csv(binary, ["report", trace, "--only", "gpu_timeline"])[1:]
                ours = rows(text)
                same = len(ours) == len(expected) and all(
                    a[0] == b[0] and abs(float(a[1]) - float(b[1])) <= 1e-4 * max(abs(float(b[1])), 1.0)
                    for a, b in zip(ours, expected))
                check(not error and same, "report gpu_timeline equals the CLI's (rounded)")

                text, error = await call(session, "report", {"name": "ops_summary", "limit": 2})
                check(not error and len(rows(text)) == 2 and "(2 of " in text, "report ops_summary, 2 rows and the total")

                text, error = await call(session, "analyze", {})
                check(not error and "## Executive summary" in text and "Recommendations" in text, "analyze")

                text, error = await call(session, "describe_table", {"table": "kernels"})
                check(not error and "| dur |" in text, "describe_table kernels")

                text, _ = await call(session, "sql", {"query": "SELECT uid FROM kernels ORDER BY dur DESC, uid LIMIT 1"})
                uid = int(rows(text)[0][0])
                text, error = await call(session, "call_stack", {"uid": uid})
                stack = rows(text)
                check(not error and stack and stack[-1][1] == str(uid), f"call_stack ends at {uid}")
                text, error = await call(session, "kernels_of", {"uid": int(stack[-3][1])})
                check(not error and f"| {uid} |" in text, "kernels_of the kernel's op holds it")

                for statement in [
                    f"COPY (SELECT * FROM kernels) TO '{written}'",
                    f"CREATE EXTERNAL TABLE x STORED AS CSV LOCATION '{outside}'",
                    "CREATE TABLE t2 AS SELECT * FROM kernels",
                    "INSERT INTO kernels SELECT * FROM kernels",
                    "DROP TABLE kernels",
                    "SET datafusion.execution.batch_size = 1",
                    "SELECT * INTO stolen FROM kernels",
                    "SELECT * FROM replay_runs('/etc/passwd')",
                ]:
                    text, error = await call(session, "sql", {"query": statement})
                    check(error and "\n" not in text, f"refused: {statement[:50]} -> {text[:90]}")
                check(not os.path.exists(written), "nothing written")
                for path in ["../outside.json", outside, "/etc/passwd"]:
                    text, error = await call(session, "open_trace", {"path": path})
                    check(error and "outside the server's root" in text, f"refused path {path}")
                text, error = await call(session, "list_traces")
                check(not error and len(rows(text)) == 1, "still serving, one trace open")

                resources = [r.uri for r in (await session.list_resources()).resources]
                check("tracesql://schema" in [str(u) for u in resources], "schema resource listed")
                query = await session.read_resource("tracesql://queries/ops_summary")
                check(query.contents[0].text.startswith("--"), "a query resource holds its header")
                prompts = sorted(p.name for p in (await session.list_prompts()).prompts)
                check(prompts == ["comparative_analysis", "standalone_analysis"], f"prompts {prompts}")
                prompt = await session.get_prompt("standalone_analysis", {"trace": name})
                check(name in prompt.messages[0].content.text, "the prompt names the trace")

    if transcript:
        with open(transcript, "w") as out:
            for tool, arguments, error, text in log:
                out.write(f"### {tool} {arguments}{' (tool error)' if error else ''}\n\n{text}\n\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--transcript")
    parser.add_argument("trace")
    args = parser.parse_args()
    asyncio.run(run(os.path.abspath(args.bin), os.path.abspath(args.trace), args.transcript))
    if FAILURES:
        print(f"{len(FAILURES)} checks failed", file=sys.stderr)
        sys.exit(1)
    print("all MCP client checks passed")


if __name__ == "__main__":
    main()
