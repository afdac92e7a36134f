"""Abusive request patterns against a served agent while a well-behaved client keeps working.

Usage: python bench_abuse.py CURRENCY_URL CURRENCY_PID BOOKING_URL BOOKING_PID [SECONDS]

Abusers connect from ten addresses per pattern (127.0.P.2 … 127.0.P.11), the well-behaved
client from 127.0.0.1, so per-caller limits tell them apart as they would tell real clients apart. Each
pattern runs for SECONDS (default 20) while the well-behaved client sends blocking `convert`
SendMessages one after another; the script prints, per pattern, the well-behaved client's success
rate and p99 latency and the server's peak RSS (sampled every 50 ms), and exits non-zero if any
pattern leaves the well-behaved client under 99 % success or the server over 1 GiB.
Everything stays on 127.0.0.1/8.
"""

import asyncio
import itertools
import json
import socket
import sys
import time

import httpx

def abusers(pattern_number):
    """Ten abuser addresses of their own per pattern, so what one pattern left running (its
    callers' long tasks) does not count against the next."""
    return [f"127.0.{pattern_number}.{n}" for n in range(2, 12)]


PATTERNS = itertools.count(1)
GOOD = "127.0.0.1"
JSON = {"content-type": "application/json", "A2A-Version": "1.0"}
MCP = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
GIB = 1 << 30


def client(address, limit=64):
    return httpx.AsyncClient(
        transport=httpx.AsyncHTTPTransport(local_address=address, retries=0),
        timeout=httpx.Timeout(30.0),
        limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit),
    )


def send(message, skill=None, return_immediately=False, method="SendMessage", rid=1):
    if skill:
        message.setdefault("metadata", {})["skill"] = skill
    message.setdefault("role", "ROLE_USER")
    message.setdefault("messageId", f"m{rid}")
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": method,
        "params": {"message": message, "configuration": {"returnImmediately": return_immediately}},
    }


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def sample_rss(pid, peak, stop):
    while not stop.is_set():
        peak[0] = max(peak[0], rss_kib(pid))
        await asyncio.sleep(0.05)


# A well-behaved client paces itself: one request every 50 ms at most (20 per second).
PACE = 0.05


async def paced(started):
    await asyncio.sleep(max(0.0, PACE - (time.perf_counter() - started)))


async def well_behaved(url, stop, results):
    body = send({"parts": [{"data": {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}}]}, "convert")
    async with client(GOOD, 4) as http:
        while not stop.is_set():
            started = time.perf_counter()
            ok = False
            try:
                response = await http.post(url, headers=JSON, json=body)
                answer = response.json()
                ok = answer.get("result", {}).get("task", {}).get("status", {}).get("state") == "TASK_STATE_COMPLETED"
            except Exception:  # noqa: BLE001 - any failure counts as one
                ok = False
            results.append((ok, time.perf_counter() - started))
            await paced(started)


async def flood(clients, make_request, concurrency, stop, total=None):
    """Sends requests from the abusers round-robin until `stop` (or `total` were sent)."""
    counter = itertools.count()
    outcomes = {}

    async def worker():
        while not stop.is_set():
            n = next(counter)
            if total is not None and n >= total:
                return
            http = clients[n % len(clients)]
            try:
                status = await make_request(http, n)
            except Exception as error:  # noqa: BLE001
                status = type(error).__name__
            outcomes[str(status)] = outcomes.get(str(status), 0) + 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return outcomes


def task_flood(url):
    async def request(http, n):
        body = send({"parts": [{"data": {"currencies": ["USD", "JPY"], "pace_ms": 600000}}]}, "report", True, rid=n)
        return (await http.post(url, headers=JSON, json=body)).status_code
    return request, 64, 10_000


def question_flood(url):
    async def request(http, n):
        body = send({"parts": [{"data": {"restaurant": "Luigi's", "guests": 2}}]}, "book_table", rid=n)
        return (await http.post(url, headers=JSON, json=body)).status_code
    return request, 64, 10_000


def large_parts(url):
    text = "x" * 900_000

    async def request(http, n):
        body = send({"parts": [{"text": text + str(n)}]}, "is-supported", rid=n)
        return (await http.post(url, headers=JSON, json=body)).status_code
    return request, 16, None


def large_lists(url):
    async def request(http, n):
        body = {"jsonrpc": "2.0", "id": n, "method": "ListTasks", "params": {"pageSize": 100, "includeArtifacts": True}}
        response = await http.post(url, headers=JSON, json=body)
        return f"{response.status_code} ({len(response.content) // 1024} KiB)" if n % 50 == 0 else response.status_code
    return request, 8, None


def session_flood(url):
    mcp = url.rstrip("/") + "/mcp"

    async def request(http, n):
        body = {"jsonrpc": "2.0", "id": n, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}
        return (await http.post(mcp, headers=MCP, json=body)).status_code
    return request, 64, 20_000


async def half_open(url, stop, addresses, count=300):
    host, port = url.split("//")[1].rstrip("/").split(":")
    sockets = []
    for n in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.bind((addresses[n % len(addresses)], 0))
        try:
            sock.connect((host, int(port)))
        except BlockingIOError:
            pass
        sockets.append(sock)
    await asyncio.sleep(0.2)
    for sock in sockets:
        try:
            sock.send(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
        except OSError:
            pass
    await stop.wait()
    # The server closes each after its header timeout (15 s by default); wait up to 20 s more.
    deadline = time.monotonic() + 20
    open_sockets = list(sockets)
    while open_sockets and time.monotonic() < deadline:
        still = []
        for sock in open_sockets:
            try:
                if sock.recv(1) != b"":
                    still.append(sock)
            except BlockingIOError:
                still.append(sock)
            except OSError:
                pass
        open_sockets = still
        await asyncio.sleep(0.2)
    for sock in sockets:
        sock.close()
    return {"half-open": count, "closed by the server": count - len(open_sockets)}


async def slow_bodies(url, stop, addresses, count=530):
    """`count` connections from one abuser address, each declaring a large body and sending one
    byte every 2 s; a connection the server closes is opened again at once."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    head = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"A2A-Version: 1.0\r\nContent-Length: 1000000\r\n\r\n")
    outcomes = {}

    async def one():
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(host, int(port), local_addr=(addresses[0], 0))
            except OSError as error:
                outcomes[type(error).__name__] = outcomes.get(type(error).__name__, 0) + 1
                await asyncio.sleep(0.1)
                continue
            answer = b""
            try:
                writer.write(head)
                while not stop.is_set():
                    writer.write(b" ")
                    await writer.drain()
                    try:
                        answer = await asyncio.wait_for(reader.read(12), 2.0)
                        break
                    except asyncio.TimeoutError:
                        continue
            except OSError:
                pass
            finally:
                writer.close()
            status = answer.decode(errors="replace")[9:12] or "closed"
            outcomes[status] = outcomes.get(status, 0) + 1

    await asyncio.gather(*(one() for _ in range(count)))
    return outcomes


async def pattern(name, target_url, good_url, pid, seconds, make=None, special=None, good=None):
    stop = asyncio.Event()
    peak = [rss_kib(pid)]
    results = []
    addresses = abusers(next(PATTERNS))
    clients = [client(address) for address in addresses]
    sampler = asyncio.create_task(sample_rss(pid, peak, stop))
    behaved = asyncio.create_task((good or well_behaved)(good_url, stop, results))
    if special:
        abuse = asyncio.create_task(special(target_url, stop, addresses))
    else:
        request, concurrency, total = make(target_url)
        abuse = asyncio.create_task(flood(clients, request, concurrency, stop, total))
    await asyncio.sleep(seconds)
    stop.set()
    outcomes = await abuse
    await behaved
    await sampler
    for http in clients:
        await http.aclose()
    successes = sum(1 for ok, _ in results if ok)
    latencies = sorted(latency for _, latency in results)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    rate = 100.0 * successes / max(1, len(results))
    print(f"{name:<16} good: {successes}/{len(results)} ok ({rate:.2f} %), p99 {p99 * 1000:.1f} ms; "
          f"server peak RSS {peak[0] / 1024:.0f} MiB; abusers: {json.dumps(outcomes, sort_keys=True)}",
          flush=True)
    return rate >= 99.0 and peak[0] * 1024 <= GIB


async def booking_client(url, stop, results):
    """Books a table with every detail given, then confirms: never left waiting."""
    body = send({"parts": [{"data": {"restaurant": "Luigi's", "guests": 2, "date": "2030-01-01"}}]}, "book_table")
    async with client(GOOD, 4) as http:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                task = (await http.post(url, headers=JSON, json=body)).json()["result"]["task"]
                ok = task["status"]["state"] == "TASK_STATE_COMPLETED"
                if task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED":
                    answer = send({"parts": [{"text": "yes"}], "taskId": task["id"], "contextId": task["contextId"]})
                    final = (await http.post(url, headers=JSON, json=answer)).json()
                    ok = final["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
            except Exception:  # noqa: BLE001 - any failure counts as one
                ok = False
            results.append((ok, time.perf_counter() - started))
            await paced(started)


async def main():
    currency, currency_pid, booking, booking_pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 20
    print(f"idle RSS: currency {rss_kib(currency_pid) / 1024:.0f} MiB, booking {rss_kib(booking_pid) / 1024:.0f} MiB")
    passed = [
        await pattern("task flood", currency, currency, currency_pid, seconds, make=task_flood),
        # The currency agent asks nothing, so questions are flooded at the booking agent, whose
        # well-behaved client books (and confirms) tables meanwhile.
        await pattern("question flood", booking, booking, booking_pid, seconds, make=question_flood,
                      good=booking_client),
        await pattern("large parts", currency, currency, currency_pid, seconds, make=large_parts),
        await pattern("large ListTasks", currency, currency, currency_pid, seconds, make=large_lists),
        await pattern("session flood", currency, currency, currency_pid, seconds, make=session_flood),
        await pattern("half-open conns", currency, currency, currency_pid, seconds, special=half_open),
        await pattern("slow bodies", currency, currency, currency_pid, seconds, special=slow_bodies),
    ]
    print("all patterns within bounds" if all(passed) else "SOME PATTERN OUT OF BOUNDS")
    sys.exit(0 if all(passed) else 1)


if __name__ == "__main__":
    asyncio.run(main())
