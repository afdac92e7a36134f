"""Leaves tasks waiting for input on a booking agent and reports what they cost the server.

Usage: python bench_waiting.py A2A_URL SERVER_PID TASKS
"""

import asyncio
import os
import sys
import time

import httpx


def rss_kib(pid: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS")


def threads(pid: str) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


async def main(url: str, pid: str, count: int) -> None:
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=64), timeout=60) as http:

        async def ask(i: int) -> None:
            message = {"messageId": f"m{i}", "role": "ROLE_USER", "parts": [{"data": {"restaurant": "Luigi", "guests": 2}}]}
            body = {"jsonrpc": "2.0", "id": i, "method": "SendMessage", "params": {"message": message}}
            response = (await http.post(url, json=body)).json()
            state = response["result"]["task"]["status"]["state"]
            if state != "TASK_STATE_INPUT_REQUIRED":
                raise SystemExit(f"task {i} is {state}")

        # Warm up connections and allocator pools before measuring.
        await asyncio.gather(*(ask(i) for i in range(200)))
        base, threads_before = rss_kib(pid), threads(pid)
        start = time.monotonic()
        await asyncio.gather(*(ask(i) for i in range(200, 200 + count)))
        took = time.monotonic() - start
        grown = rss_kib(pid) - base
        print(
            f"{count} tasks waiting for input: +{grown} KiB RSS ({grown * 1024 / count:.0f} B per task), "
            f"server threads {threads_before} -> {threads(pid)}, created at {count / took:.0f} tasks/s"
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
