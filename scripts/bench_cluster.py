"""Cross-replica event latency: how long an event written through one replica takes to reach a
subscriber on another.

Usage: python bench_cluster.py A_URL B_URL API_KEY TASKS

For each of TASKS tasks: currency's `exchange` is sent to replica A (A_URL, the replica's own
address, not the balancer) and waits for its first answer there; replica B (B_URL) is subscribed
to it (SubscribeToTask: B follows a task A runs). Each of the task's two answers is then sent to
A, and the time from just before the answer leaves to the first event B's stream yields is one
sample: it includes A taking the answer and writing the event, then B learning of it through the
database (a NOTIFY) and writing it to its stream. Prints `events: N samples, p50 X ms, p99 Y ms`.
Everything stays on 127.0.0.1.
"""

import asyncio
import json
import sys
import time

import httpx


def headers(key, stream=False):
    said = {"content-type": "application/json", "A2A-Version": "1.0", "x-api-key": key}
    if stream:
        said["accept"] = "text/event-stream"
    return said


def rpc(method, params):
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def exchange(n):
    return rpc("SendMessage", {"message": {
        "messageId": f"bench-{n}", "role": "ROLE_USER",
        "parts": [{"data": {"money": {"amount": 50, "currency": "GBP"}, "to": "JPY"}}],
        "metadata": {"skill": "exchange"}}})


def answer(task, text, n):
    return rpc("SendMessage", {
        "message": {"messageId": f"answer-{n}-{text}", "role": "ROLE_USER", "taskId": task["id"],
                    "contextId": task["contextId"], "parts": [{"text": text}]},
        "configuration": {"returnImmediately": True}})


async def events(stream):
    """The JSON results of an SSE response, one at a time."""
    async for line in stream.aiter_lines():
        if line.startswith("data:"):
            yield json.loads(line[5:])["result"]


async def one_task(client, a, b, key, n):
    asked = (await client.post(a, json=exchange(n), headers=headers(key))).json()
    task = asked["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", asked
    samples = []
    subscribe = rpc("SubscribeToTask", {"id": task["id"]})
    async with client.stream("POST", b, json=subscribe, headers=headers(key, True)) as stream:
        following = events(stream)
        first = await following.__anext__()
        assert "task" in first, first
        for text in ("ACME-7", "yes"):
            started = time.perf_counter()
            sent = asyncio.create_task(client.post(a, json=answer(task, text, n), headers=headers(key)))
            await following.__anext__()
            samples.append((time.perf_counter() - started) * 1000)
            reply = (await sent).json()
            assert "result" in reply, reply
            # The rest of this answer's events, up to the next question or the end.
            async for event in following:
                state = event.get("statusUpdate", {}).get("status", {}).get("state")
                if state in ("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"):
                    break
    return samples


def percentile(sorted_samples, fraction):
    index = min(len(sorted_samples) - 1, int(round(fraction * (len(sorted_samples) - 1))))
    return sorted_samples[index]


async def main(a, b, key, tasks):
    samples = []
    timeout = httpx.Timeout(30.0)
    async with httpx.AsyncClient(timeout=timeout) as client:
        # The first tasks warm both replicas' connections and caches; not counted.
        for n in range(3):
            await one_task(client, f"{a}currency/", f"{b}currency/", key, -1 - n)
        for n in range(tasks):
            samples += await one_task(client, f"{a}currency/", f"{b}currency/", key, n)
    samples.sort()
    print(f"events: {len(samples)} samples, p50 {percentile(samples, 0.5):.1f} ms, "
          f"p99 {percentile(samples, 0.99):.1f} ms")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
