"""Registers clients with an authorization server until its cap and past it, timing its CPU.

Usage: python bench_registrations.py BASE_URL PID [CAP]

16 threads register at once over kept-alive connections, each registration from an address of
its own (X-Forwarded-For, which the server believes from its trusted loopback proxy). Prints the
server's CPU per registration for the first thousand, the thousand before half the cap and the
last thousand, then per refusal past the cap (each must be a 503 `temporarily_unavailable`),
and last the ratios to the first thousand's.
"""

import http.client
import json
import os
import sys
import threading
import urllib.parse

THREADS = 16
BODY = json.dumps({
    "client_name": "Bench client",
    "redirect_uris": ["http://127.0.0.1:33418/callback"],
    "grant_types": ["authorization_code", "refresh_token"],
    "token_endpoint_auth_method": "none",
})


def cpu_seconds(pid):
    """User and system CPU of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Registrar:
    """Numbers registrations across threads and tallies the statuses answered."""

    def __init__(self, base):
        self.url = urllib.parse.urlsplit(base)
        self.lock = threading.Lock()
        self.sent = 0
        self.statuses = {}

    def register_until(self, total):
        """Registers from THREADS threads until `total` registrations were sent in all."""
        threads = [threading.Thread(target=self.worker, args=(total,)) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def worker(self, total):
        connection = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=30)
        while True:
            with self.lock:
                if self.sent >= total:
                    return
                self.sent += 1
                n = self.sent
            address = f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
            connection.request("POST", "/oauth/register", BODY, {
                "Content-Type": "application/json",
                "X-Forwarded-For": address,
            })
            response = connection.getresponse()
            answer = response.read()
            if response.status not in (201, 503):
                sys.exit(f"registration {n} answered {response.status}: {answer[:200]!r}")
            with self.lock:
                self.statuses[response.status] = self.statuses.get(response.status, 0) + 1


def main():
    base, pid = sys.argv[1], int(sys.argv[2])
    cap = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    registrar = Registrar(base)
    phases = [(1000, "0-1k"), (cap // 2 - 1000, None), (cap // 2, "before half"),
              (cap - 1000, None), (cap, "last 1k"), (cap + 1000, "refused")]
    measured, done = {}, 0
    for until, label in phases:
        before = cpu_seconds(pid)
        registrar.register_until(until)
        per_call = (cpu_seconds(pid) - before) * 1e6 / (until - done)
        done = until
        if label:
            measured[label] = per_call
            print(f"registrations {label}: server CPU {per_call:.0f} us each", flush=True)
    if registrar.statuses.get(201) != cap or registrar.statuses.get(503) != 1000:
        sys.exit(f"expected {cap} registered and 1000 refused, got {registrar.statuses}")
    first = measured["0-1k"]
    print(f"registrations: last thousand / first thousand = {measured['last 1k'] / first:.2f}, "
          f"refusal / first registration = {measured['refused'] / first:.2f}")


if __name__ == "__main__":
    main()
