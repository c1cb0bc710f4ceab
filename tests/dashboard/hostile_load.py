#!/usr/bin/env python3
"""A bounded load generator of hostile HTTP clients, for the dashboard's
tests and bench/dashboard. It opens at most --connections sockets, sends at
most --max-bytes, runs at most --seconds, and meanwhile asks a legitimate
`GET /api/version` every --probe-every seconds on a fresh connection,
reporting what each got and how long it took.

Modes:
  slow     each connection sends a request head, one byte every --interval s
  idle     each connection opens and sends nothing
  headers  one connection sends short header lines as fast as it can,
           up to --max-bytes
Prints one JSON object on stdout. Standard library only.
"""

import argparse
import json
import selectors
import socket
import threading
import time

HEAD = b"GET /api/version HTTP/1.1\r\nHost: %s\r\nX-Slow: " + b"a" * 4000 + b"\r\n\r\n"


def connect(host, port, source, timeout=3):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if source:
        s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((host, port))
    s.setblocking(False)
    return s


def probe(args, started, out, stop):
    headers = "Host: %s\r\n" % args.host_header
    if args.token:
        headers += "Authorization: Bearer %s\r\n" % args.token
    request = ("GET /api/version HTTP/1.1\r\n%sConnection: close\r\n\r\n" % headers).encode()
    while not stop.is_set():
        t0 = time.monotonic()
        status = 0
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if args.probe_source:
                s.bind((args.probe_source, 0))
            s.settimeout(args.probe_timeout)
            s.connect((args.host, args.port))
            s.sendall(request)
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            s.close()
            if data.startswith(b"HTTP/1.1 "):
                status = int(data[9:12])
        except OSError:
            status = 0
        out.append({"at": round(t0 - started, 2), "status": status,
                    "seconds": round(time.monotonic() - t0, 3)})
        stop.wait(args.probe_every)


def attack(args, started):
    """Returns the attack's summary."""
    sel = selectors.DefaultSelector()
    opened, refused = [], 0
    count = 1 if args.mode == "headers" else args.connections
    sources = args.source.split(",")
    for i in range(count):
        try:
            s = connect(args.host, args.port, sources[i % len(sources)])
        except OSError:
            refused += 1
            continue
        opened.append(s)
        sel.register(s, selectors.EVENT_READ, {"opened": time.monotonic(), "sent": 0})
    head = HEAD % args.host_header.encode()
    closed, answers, sent = [], {}, 0
    line = b"a: b\r\n" * 1024
    first = head[:head.index(b"X-Slow")]
    if args.mode == "headers" and opened:
        opened[0].sendall(first)
        sent += len(first)
    next_byte = time.monotonic()
    deadline = started + args.seconds
    while time.monotonic() < deadline and len(closed) < len(opened):
        if args.mode == "headers" and opened and opened[0].fileno() >= 0 and sent < args.max_bytes:
            try:
                sent += opened[0].send(line)
            except BlockingIOError:
                pass
            except OSError:
                pass
        if args.mode == "slow" and time.monotonic() >= next_byte:
            for key in list(sel.get_map().values()):
                s, data = key.fileobj, key.data
                if data["sent"] < len(head) and sent < args.max_bytes:
                    try:
                        data["sent"] += s.send(head[data["sent"]:data["sent"] + 1])
                        sent += 1
                    except OSError:
                        pass
            next_byte = time.monotonic() + args.interval
        timeout = 0 if args.mode == "headers" else 0.1
        for key, _ in sel.select(timeout):
            s, data = key.fileobj, key.data
            try:
                chunk = s.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if chunk:
                answers.setdefault(chunk.split(b"\r\n", 1)[0].decode("latin-1"), 0)
                answers[chunk.split(b"\r\n", 1)[0].decode("latin-1")] += 1
                continue
            closed.append(round(time.monotonic() - data["opened"], 2))
            sel.unregister(s)
            s.close()
    still_open = len(sel.get_map())
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    return {"opened": len(opened), "refused_at_connect": refused, "closed_after_s": closed,
            "still_open": still_open, "answers": answers, "bytes_sent": sent}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["slow", "idle", "headers"])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host-header", default="127.0.0.1")
    p.add_argument("--token", default="")
    p.add_argument("--source", default="",
                   help="source addresses of the attack's sockets, comma-separated, in turn")
    p.add_argument("--probe-source", default="", help="source address of the probes")
    p.add_argument("--connections", type=int, default=16)
    p.add_argument("--interval", type=float, default=2.0)
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--max-bytes", type=int, default=64 << 20)
    p.add_argument("--probe-every", type=float, default=0.5)
    p.add_argument("--probe-timeout", type=float, default=5.0)
    args = p.parse_args()
    if args.connections > 2000 or args.seconds > 600 or args.max_bytes > (1 << 30):
        p.error("bounded: at most 2000 connections, 600 s and 1 GiB")
    started = time.monotonic()
    probes, stop = [], threading.Event()
    t = threading.Thread(target=probe, args=(args, started, probes, stop))
    t.start()
    try:
        result = attack(args, started)
        # Probes go on to the end of the run even when the server closed
        # every attacking connection early.
        stop.wait(max(0.0, started + args.seconds - time.monotonic()))
    finally:
        stop.set()
        t.join()
    result["mode"] = args.mode
    result["probes"] = probes
    print(json.dumps(result))


if __name__ == "__main__":
    main()
