"""The report of scripts/bench-peers: its runs, each server's best round and the spread across
rounds, the ratios to this SDK's `hello` (overall and in each round), memory, and the last line
scripts and the issue tracker read.

Usage: bench_peers.py RUNS IDLE AFTER, where RUNS holds a line per run, "round kind server
concurrency requests/s p50_ms p99_ms cpu_us_per_request switches_per_request failed" (kind: a2a,
mcp/stateless or mcp/session; failed: the fraction of requests not answered), and IDLE and
AFTER a line per server, "server rss anon file" in KiB. A run with more than 1% failed counts
in no best round and no ratio.
"""

import sys
from collections import defaultdict

OURS = "hello"
CEILING = "echo"  # the bare axum echo: a ceiling beside the A2A rows, never a peer
MAX_FAILED = 0.01  # a run failing more of its requests than this counts nowhere


def read_runs(path):
    """{(kind, server, c): [run per round]}, each run a dict of its figures."""
    runs = defaultdict(list)
    with open(path) as lines:
        for line in lines:
            fields = line.split()
            if len(fields) != 10:
                continue
            round_, kind, server, c = fields[:4]
            rate, p50, p99, cpu, switches, failed = (float(v) for v in fields[4:])
            if failed > MAX_FAILED:
                print(f"set aside: {kind} {server} c={c} round {round_}: "
                      f"{failed:.1%} of its requests failed")
                continue
            runs[(kind, server, int(c))].append(
                {"round": int(round_), "rate": rate, "p50": p50, "p99": p99, "cpu": cpu,
                 "switches": switches})
    return runs


def read_memory(path):
    with open(path) as lines:
        return {f[0]: [int(v) for v in f[1:4]] for f in (l.split() for l in lines) if len(f) == 4}


def best(rows):
    """The best round's figures: highest rate, lowest CPU, switches and p99 (p50 beside it),
    and the spread of the rate across rounds, (max - min) / max."""
    rates = [r["rate"] for r in rows]
    low = min(rows, key=lambda r: r["p99"])
    return {
        "rate": max(rates),
        "spread": (max(rates) - min(rates)) / max(rates) if max(rates) else 0.0,
        "cpu": min(r["cpu"] for r in rows),
        "switches": min(r["switches"] for r in rows),
        "p99": low["p99"],
        "p50": low["p50"],
    }


def ratio(a, b):
    return a / b if b else float("nan")


def peers_of(runs, kind):
    return sorted({s for (k, s, _) in runs if k == kind and s not in (OURS, CEILING)})


def kind_table(runs, kind):
    """Prints one protocol's table; returns {c: (rate ratio, cpu ratio)} against the best peer,
    each a ratio of best rounds, or None where hello or every peer is missing."""
    servers = [s for s in (CEILING, OURS) if (kind, s, 1) in runs] + peers_of(runs, kind)
    bests = {(s, c): best(runs[(kind, s, c)]) for s in servers for c in (1, 16)
             if (kind, s, c) in runs}
    print(f"\n{kind}: best of {max(len(v) for v in runs.values())} rounds "
          "(spread = (max - min) / max of requests/s across rounds)")
    print("| server | c=1 rps (spread) | c=1 CPU us/req | c=1 switches/req | c=16 rps (spread) "
          "| c=16 CPU us/req | p99 c=16 ms | hello/this c=1 | hello/this c=16 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in servers:
        one, many = bests.get((s, 1)), bests.get((s, 16))
        ours1, ours16 = bests.get((OURS, 1)), bests.get((OURS, 16))
        # A concurrency whose every run was set aside shows as "-".
        cells = []
        for own, ours in ((one, ours1), (many, ours16)):
            if own:
                cells.append((f"{own['rate']:.0f} ({own['spread']:.0%})", f"{own['cpu']:.1f}",
                              f"{own['switches']:.2f}", f"{own['p99']:.2f}",
                              f"{ratio(ours['rate'], own['rate']):.2f}" if ours else "-"))
            else:
                cells.append(("-",) * 5)
        print(f"| {s} | {cells[0][0]} | {cells[0][1]} | {cells[0][2]} | {cells[1][0]} "
              f"| {cells[1][1]} | {cells[1][3]} | {cells[0][4]} | {cells[1][4]} |")
    result = {}
    for c in (1, 16):
        peers = [bests[(s, c)] for s in peers_of(runs, kind) if (s, c) in bests]
        ours = bests.get((OURS, c))
        if not peers or not ours:
            result[c] = None
            continue
        result[c] = (ratio(ours["rate"], max(p["rate"] for p in peers)),
                     ratio(min(p["cpu"] for p in peers), ours["cpu"]))
        print(f"c={c}: hello/best peer {result[c][0]:.2f} (requests/s), best peer's CPU per "
              f"request/hello's {result[c][1]:.2f}; {per_round(runs, kind, c)}")
    return result


def per_round(runs, kind, c):
    """hello against the best peer of each round: the range of both ratios over the rounds."""
    rounds = defaultdict(dict)
    for (k, s, cc), rows in runs.items():
        if k == kind and cc == c and s != CEILING:
            for r in rows:
                rounds[r["round"]][s] = r
    rates, cpus = [], []
    for by_server in rounds.values():
        ours = by_server.get(OURS)
        peers = [r for s, r in by_server.items() if s != OURS]
        if ours and peers:
            rates.append(ratio(ours["rate"], max(p["rate"] for p in peers)))
            cpus.append(ratio(min(p["cpu"] for p in peers), ours["cpu"]))
    if not rates:
        return "no round measured hello and a peer"
    return (f"in each of {len(rates)} rounds: requests/s {min(rates):.2f}-{max(rates):.2f}, "
            f"CPU {min(cpus):.2f}-{max(cpus):.2f}")


def memory_table(idle, after):
    mib = lambda kib: kib / 1024
    print("\n| server | RSS idle MiB (anon, file) | RSS after MiB |")
    print("|---|---|---|")
    for s, (rss, anon, file) in idle.items():
        print(f"| {s} | {mib(rss):.1f} ({mib(anon):.1f}, {mib(file):.1f}) "
              f"| {mib(after.get(s, [0])[0]):.1f} |")


def fmt(value):
    return "n/a" if value is None else f"{value:.2f}"


def main(runs_path, idle_path, after_path):
    runs = read_runs(runs_path)
    idle, after = read_memory(idle_path), read_memory(after_path)
    a2a = kind_table(runs, "a2a") if any(k == "a2a" for k, _, _ in runs) else {1: None, 16: None}
    mcp = {}
    for mode in ("stateless", "session"):
        kind = f"mcp/{mode}"
        if any(k == kind for k, _, _ in runs):
            mcp[mode] = kind_table(runs, kind)
    memory_table(idle, after)
    if (("a2a", CEILING, 1) in runs) and (("a2a", OURS, 1) in runs):
        echo = {c: best(runs[("a2a", CEILING, c)]) for c in (1, 16)}
        ours = {c: best(runs[("a2a", OURS, c)]) for c in (1, 16)}
        print(f"\nhello/echo: c=1 {ratio(ours[1]['rate'], echo[1]['rate']):.2f}, c=16 "
              f"{ratio(ours[16]['rate'], echo[16]['rate']):.2f} (requests/s); CPU per request "
              f"c=1 {ratio(ours[1]['cpu'], echo[1]['cpu']):.2f}x, "
              f"c=16 {ratio(ours[16]['cpu'], echo[16]['cpu']):.2f}x")

    def mcp_ratio(c):
        found = [m[c][0] for m in mcp.values() if m.get(c)]
        return min(found) if found else None

    a2a16 = ("a2a", OURS, 16) in runs and best(runs[("a2a", OURS, 16)])
    anon = idle.get(OURS, [0, 0, 0])[1] / 1024
    print(f"bench-peers: c1 x-best-peer = {fmt(a2a[1] and a2a[1][0])}, "
          f"c1 cpu x-best-peer = {fmt(a2a[1] and a2a[1][1])}, "
          f"c16 x-best-peer = {fmt(a2a[16] and a2a[16][0])}, "
          f"c16 p99 ms = {a2a16['p99'] if a2a16 else 'n/a'}, "
          f"mcp c1 x-best-peer = {fmt(mcp_ratio(1))}, mcp c16 x-best-peer = {fmt(mcp_ratio(16))}, "
          f"idle anon MiB = {anon:.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
