#!/usr/bin/env python3
"""The inspector attack, against a running `luthier serve`: SESSIONS sessions of one address each
open STREAMS `/inspect/events?window=300` streams and send nothing more. Reports how many streams
were admitted and refused, the server's CPU over SECONDS while they are held (from
/proc/PID/stat, since this machine is noisy), then another customer's change time meanwhile.

    python3 Benchmarks/inspector-attack.py --port 8080 --pid "$(pgrep -f 'luthier serve')"
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time
import urllib.request


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # utime and stime, fields 14 and 15 of stat(5), counted from the third after the name.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_session(base: str) -> str:
    with urllib.request.urlopen(base + "/") as answer:
        for header in answer.headers.get_all("Set-Cookie") or []:
            if header.startswith("luthier_session="):
                return header.split(";", 1)[0]
    raise SystemExit("the shop set no session cookie")


def open_stream(port: int, path: str, cookie: str) -> tuple[socket.socket, int]:
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n".encode())
    status = connection.recv(64).split(b" ", 2)[1]
    return connection, int(status)


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
    options = parser.parse_args()
    base = f"http://127.0.0.1:{options.port}"

    held, statuses = [], {}
    for _ in range(options.sessions):
        cookie = new_session(base)
        for _ in range(options.streams):
            connection, status = open_stream(options.port, "/inspect/events?window=300", cookie)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200:
                held.append(connection)
            else:
                connection.close()
    before = cpu_seconds(options.pid)
    time.sleep(options.seconds)  # the attack is holding its streams: nothing to wait for
    spent = cpu_seconds(options.pid) - before

    customer = new_session(base)
    times = [change(base, customer, ["sky", "dusk"][index % 2]) for index in range(options.changes)]
    for connection in held:
        connection.close()
    answered = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
    print(f"{options.sessions * options.streams} streams: {answered}")
    print(f"server CPU over {options.seconds:g} s: {spent:.2f} s ({100 * spent / options.seconds:.1f} % of a core)")
    print(f"another customer's change: {statistics.median(times):.1f} ms median of {len(times)}")


if __name__ == "__main__":
    main()
