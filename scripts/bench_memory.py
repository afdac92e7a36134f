"""Memory after large requests: RSS of one agent before, at its peak and after two patterns
that allocate and free large blocks from many threads, which glibc's malloc keeps.

Usage: python bench_memory.py CURRENCY_URL CURRENCY_PID BOOKING_URL BOOKING_PID LABEL

- large ListTasks: 100 tasks of 0.9 MB are created, then 40 ListTasks pages of 100 tasks with
  their artifacts are read, two at a time (each page is cut at 4 MiB);
- large answers: one booking waits for its date and gets 80 wrong answers of 0.9 MB each (the
  skill asks again each time; the task's history stays within its byte budget).

Prints one line per pattern: RSS before, peak (sampled every 20 ms) and 3 s after. Everything
stays on 127.0.0.1.
"""

import asyncio
import sys

import httpx

JSON = {"content-type": "application/json", "A2A-Version": "1.0"}


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def rpc(method, params, rid=1):
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def message(parts, skill=None, **extra):
    message = {"messageId": f"m{id(parts)}-{len(str(extra))}", "role": "ROLE_USER", "parts": parts, **extra}
    if skill:
        message["metadata"] = {"skill": skill}
    return message


async def measure(name, pid, work):
    peak = [rss_mib(pid)]
    before = peak[0]
    done = asyncio.Event()

    async def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib(pid))
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    await work()
    done.set()
    await sampler
    await asyncio.sleep(3)
    print(f"{name:<16} RSS before {before:6.1f} MiB, peak {peak[0]:6.1f} MiB, 3 s after {rss_mib(pid):6.1f} MiB", flush=True)


async def large_lists(http, url):
    text = "x" * 900_000
    for n in range(100):
        body = rpc("SendMessage", {"message": message([{"text": f"{text}{n}"}], "is-supported")}, n)
        response = await http.post(url, headers=JSON, json=body)
        response.raise_for_status()

    async def pages():
        for n in range(20):
            body = rpc("ListTasks", {"pageSize": 100, "includeArtifacts": True, "historyLength": 100}, n)
            response = await http.post(url, headers=JSON, json=body)
            assert "result" in response.json(), response.text[:200]

    await asyncio.gather(pages(), pages())


async def large_answers(http, url):
    body = rpc("SendMessage", {"message": message([{"data": {"restaurant": "Luigi's", "guests": 2}}], "book_table")})
    task = (await http.post(url, headers=JSON, json=body)).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
    wrong = "not a date " + "x" * 900_000
    for n in range(80):
        answer = message([{"text": f"{wrong}{n}"}], taskId=task["id"], contextId=task["contextId"])
        answered = (await http.post(url, headers=JSON, json=rpc("SendMessage", {"message": answer}, n))).json()
        assert answered["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", str(answered)[:300]


async def main():
    currency, currency_pid, booking, booking_pid, label = sys.argv[1:6]
    print(f"--- {label}")
    async with httpx.AsyncClient(timeout=60) as http:
        await measure("large ListTasks", int(currency_pid), lambda: large_lists(http, currency))
        await measure("large answers", int(booking_pid), lambda: large_answers(http, booking))


if __name__ == "__main__":
    asyncio.run(main())
