#!/usr/bin/env python3
"""The inspector attack, against a running `luthier serve`: SESSIONS sessions of one address each
open STREAMS `/inspect/events?window=300` streams and send nothing more. Reports how many streams
were admitted and refused, the server's CPU over SECONDS while they are held (from
/proc/PID/stat, since this machine is noisy) and the bytes the held streams got meanwhile, then
another customer's change time.

    python3 Benchmarks/inspector-attack.py --port 8080 --pid "$(pgrep -f 'luthier serve')"

With `--forwarded` (a server behind `--trust-proxy`), each session comes from an address of its own
(`X-Forwarded-For`), so only the per-session cap applies: 8 sessions × 4 streams are 32 idle
inspectors, what a busy team's screens might hold open.
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import statistics
import time
import urllib.request


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # utime and stime, fields 14 and 15 of stat(5), counted from the third after the name.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_session(base: str, forwarded: str | None = None) -> str:
    request = urllib.request.Request(base + "/", headers={"X-Forwarded-For": forwarded} if forwarded else {})
    with urllib.request.urlopen(request) as answer:
        for header in answer.headers.get_all("Set-Cookie") or []:
            if header.startswith("luthier_session="):
                return header.split(";", 1)[0]
    raise SystemExit("the shop set no session cookie")


def open_stream(port: int, path: str, cookie: str, forwarded: str | None = None) -> tuple[socket.socket, int]:
    connection = socket.create_connection(("127.0.0.1", port))
    via = f"X-Forwarded-For: {forwarded}\r\n" if forwarded else ""
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n{via}\r\n".encode())
    status = connection.recv(64).split(b" ", 2)[1]
    return connection, int(status)


def drain(connections: list[socket.socket]) -> int:
    """Reads what the streams have been sent so far, without waiting; returns the byte count."""
    received = 0
    while True:
        ready, _, _ = select.select(connections, [], [], 0)
        if not ready:
            return received
        for connection in ready:
            received += len(connection.recv(65536))


def change(base: str, cookie: str, color: str) -> float:
    request = urllib.request.Request(
        base + "/build", data=f"color={color}".encode(), method="POST",
        headers={"Cookie": cookie, "X-Requested-With": "fetch",
                 "Content-Type": "application/x-www-form-urlencoded"})
    started = time.perf_counter()
    with urllib.request.urlopen(request) as answer:
        answer.read()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--forwarded", action="store_true", help="an address of its own per session")
    options = parser.parse_args()
    base = f"http://127.0.0.1:{options.port}"

    held, statuses = [], {}
    for number in range(options.sessions):
        forwarded = f"10.9.{number // 250}.{number % 250 + 1}" if options.forwarded else None
        cookie = new_session(base, forwarded)
        for _ in range(options.streams):
            connection, status = open_stream(options.port, "/inspect/events?window=300", cookie, forwarded)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200:
                held.append(connection)
            else:
                connection.close()
    time.sleep(1)  # each stream's first diagram, which is not what an idle inspector costs
    drain(held)
    before = cpu_seconds(options.pid)
    time.sleep(options.seconds)  # the attack is holding its streams: nothing to wait for
    spent = cpu_seconds(options.pid) - before
    idle_bytes = drain(held)

    customer = new_session(base)
    times = [change(base, customer, ["sky", "dusk"][index % 2]) for index in range(options.changes)]
    for connection in held:
        connection.close()
    answered = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
    print(f"{options.sessions * options.streams} streams: {answered}")
    print(f"server CPU over {options.seconds:g} s: {spent:.2f} s ({100 * spent / options.seconds:.1f} % of a core)")
    print(f"sent to the {len(held)} held streams meanwhile: {idle_bytes} bytes")
    print(f"another customer's change: {statistics.median(times):.1f} ms median of {len(times)}")


if __name__ == "__main__":
    main()
