"""The dashboard stays up under hostile clients (http_server.h): slow and
idle connections, endless headers, too many headers, a big body. Each
attack is hostile_load.py, a bounded load generator, run against a real
`sweep dashboard` while it asks a legitimate request every half second
from another address; every one of those must be answered.

Usage: hostile_test.py SWEEP [--netns]
  without --netns: on loopback, attackers from 127.0.0.2 and 127.0.0.3,
    the legitimate client from 127.0.0.1;
  --netns: the dashboard in a network namespace of its own, bound beyond
    loopback with a token, attackers and the legitimate client in another,
    across a veth pair. Needs root (CAP_NET_ADMIN); exits 77 (skipped)
    when namespaces cannot be made.
"""

import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helpers  # noqa: E402

SWEEP = None
NETNS = False
LOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_load.py")
# What the dashboard promises (http_server.h's HttpLimits).
REQUEST_TIMEOUT_S = 10
PER_ADDRESS = 32
# Long enough for every attacking connection to pass the request timeout.
RUN_S = REQUEST_TIMEOUT_S + 5


def load(mode, port, prefix=(), **options):
    cmd = [*prefix, sys.executable, LOAD, mode, "--port", str(port)]
    for key, value in options.items():
        cmd += ["--" + key.replace("_", "-"), str(value)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError("hostile_load.py %s: %s" % (mode, r.stderr))
    return json.loads(r.stdout)


def rss_peak_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


def answer(host, port, text, whole=False):
    """What the server answers to bytes `text`: its first line, or with
    `whole` every byte until it closes the connection."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(text)
        data = b""
        while whole or b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break  # closed by the server
            data += chunk
    return data if whole else data.split(b"\r\n", 1)[0].decode("latin-1")


def raw_request(host, port, text):
    """The first line the server answers to bytes `text`, or ''."""
    return answer(host, port, text)


def server_pid(dash):
    # `sweep dashboard` execs sweep-dashboard, so its pid is the server's.
    return dash.proc.pid


class Attacks:
    """The attacks, against self.host:self.port; self.prefix runs a command
    where the clients are; self.sources are three client addresses."""

    def assert_all_probes_answered(self, result):
        probes = result["probes"]
        self.assertGreaterEqual(len(probes), 6)
        bad = [p for p in probes if p["status"] != 200]
        self.assertEqual(bad, [], "legitimate requests not answered during %s" % result["mode"])

    def test_slow_and_idle_connections_are_closed_and_others_are_served(self):
        legit, slow_from, idle_from = self.sources
        common = dict(host=self.host, host_header=self.host_header, token=self.token,
                      probe_source=legit, seconds=RUN_S)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            slow = pool.submit(load, "slow", self.port, self.prefix, source=slow_from,
                               connections=16, interval=2, **common)
            idle = pool.submit(load, "idle", self.port, self.prefix, source=idle_from,
                               connections=500, **common)
            slow, idle = slow.result(), idle.result()
        # A byte every 2 s does not keep a request open past its deadline.
        self.assertEqual(slow["opened"], 16)
        self.assertEqual(slow["still_open"], 0)
        self.assertEqual(len(slow["closed_after_s"]), 16)
        self.assert_all_probes_answered(slow)
        # 500 idle connections from one address: those over its cap are
        # refused at once with a 503, the rest closed when idle too long.
        refused = idle["answers"].get("HTTP/1.1 503 Service Unavailable", 0)
        self.assertGreaterEqual(refused + idle["refused_at_connect"], 500 - PER_ADDRESS)
        self.assertEqual(idle["still_open"], 0)
        self.assert_all_probes_answered(idle)

    def test_endless_headers_are_cut_off_before_memory_grows(self):
        before = rss_peak_kib(self.pid)
        result = load("headers", self.port, self.prefix, host=self.host,
                      host_header=self.host_header, token=self.token, source=self.sources[1],
                      probe_source=self.sources[0], seconds=4, max_bytes=200 << 20)
        self.assertEqual(result["answers"], {"HTTP/1.1 431 Request Header Fields Too Large": 1})
        self.assertLess(result["bytes_sent"], 8 << 20)  # the socket buffers' worth at most
        self.assertEqual(result["still_open"], 0)
        self.assert_all_probes_answered(result)
        self.assertLess(rss_peak_kib(self.pid) - before, 16 << 10)


class LoopbackTest(Attacks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = helpers.temp_folder()
        cls.db = os.path.join(cls.tmp.name, "h.db")
        helpers.run_study(SWEEP, cls.tmp.name, helpers.HYPERBAND, cls.db)
        cls.dash = helpers.Dashboard(SWEEP, cls.db)
        cls.host, cls.port = "127.0.0.1", int(cls.dash.url.rstrip("/").rsplit(":", 1)[1])
        cls.host_header, cls.token, cls.prefix = "127.0.0.1", "", ()
        cls.sources = ("127.0.0.1", "127.0.0.2", "127.0.0.3")
        cls.pid = server_pid(cls.dash)

    @classmethod
    def tearDownClass(cls):
        cls.dash.stop()
        cls.tmp.cleanup()

    def test_a_full_dashboard_makes_room_for_a_new_client(self):
        # 300 idle connections from ten addresses, each under its own cap,
        # pass the total (256): the longest waiting are closed to make room.
        sources = ",".join("127.0.0.%d" % i for i in range(11, 21))
        result = load("idle", self.port, source=sources, connections=300, seconds=6,
                      probe_source="127.0.0.1")
        self.assertEqual(result["opened"], 300)
        self.assertNotIn("HTTP/1.1 503 Service Unavailable", result["answers"])
        self.assertGreaterEqual(len(result["closed_after_s"]), 300 - 256)
        self.assertLessEqual(result["still_open"], 256)
        self.assert_all_probes_answered(result)

    def test_a_refusal_ends_its_connection(self):
        # Read until the server closes: the refusal kept nothing open.
        data = answer(self.host, self.port, b"POST /api/studies HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Length: 0\r\n\r\n", whole=True)
        self.assertTrue(data.startswith(b"HTTP/1.1 405 "), data[:100])
        self.assertIn(b"Connection: close", data)
        # HEAD: the length of the answer GET would give, and no body.
        data = answer(self.host, self.port, b"HEAD /api/version HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Connection: close\r\n\r\n", whole=True)
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "), head)
        self.assertIn(b"Content-Length: ", head)
        self.assertGreater(int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0]), 10)
        self.assertEqual(body, b"")

    def test_too_many_headers_and_a_body_are_refused(self):
        head = b"GET /api/version HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        few = b"".join(b"X-%d: y\r\n" % i for i in range(60))
        many = b"".join(b"X-%d: y\r\n" % i for i in range(100))
        self.assertEqual(raw_request(self.host, self.port, head + few + b"\r\n"), "HTTP/1.1 200 OK")
        self.assertEqual(raw_request(self.host, self.port, head + many + b"\r\n"),
                         "HTTP/1.1 431 Request Header Fields Too Large")
        body = b"Content-Length: 100000\r\n\r\n" + b"x" * 100000
        self.assertEqual(raw_request(self.host, self.port, head + body),
                         "HTTP/1.1 413 Payload Too Large")
        self.assertEqual(raw_request(self.host, self.port, b"NOT HTTP AT ALL\r\n\r\n"),
                         "HTTP/1.1 400 Bad Request")


class NetnsTest(Attacks, unittest.TestCase):
    """Beyond loopback: server namespace 10.231.N.1, clients 10.231.N.2-4."""

    @classmethod
    def setUpClass(cls):
        n = os.getpid() % 200 + 20
        cls.server_ns, cls.client_ns = "sweep-dash-%d-s" % n, "sweep-dash-%d-c" % n
        net = "10.231.%d." % n
        cls.tmp = helpers.temp_folder()
        cls.made = []
        ip = ["ip"]
        try:
            for ns in (cls.server_ns, cls.client_ns):
                subprocess.run(ip + ["netns", "add", ns], check=True, capture_output=True)
                cls.made.append(ns)
            a, b = "swd%da" % n, "swd%db" % n
            for args in (["link", "add", a, "type", "veth", "peer", "name", b],
                         ["link", "set", a, "netns", cls.server_ns],
                         ["link", "set", b, "netns", cls.client_ns],
                         ["-n", cls.server_ns, "addr", "add", net + "1/24", "dev", a],
                         ["-n", cls.client_ns, "addr", "add", net + "2/24", "dev", b],
                         ["-n", cls.client_ns, "addr", "add", net + "3/24", "dev", b],
                         ["-n", cls.client_ns, "addr", "add", net + "4/24", "dev", b],
                         ["-n", cls.server_ns, "link", "set", a, "up"],
                         ["-n", cls.client_ns, "link", "set", b, "up"],
                         ["-n", cls.server_ns, "link", "set", "lo", "up"]):
                subprocess.run(ip + args, check=True, capture_output=True)
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            cls.tearDownClass()
            raise unittest.SkipTest("cannot make network namespaces here: %s" % e)
        cls.db = os.path.join(cls.tmp.name, "h.db")
        helpers.run_study(SWEEP, cls.tmp.name, helpers.HYPERBAND, cls.db)
        cls.token = "n3tns-t0ken-for-the-hostile-test"
        env = dict(os.environ, SWEEP_DASHBOARD_TOKEN=cls.token)
        cls.dash = helpers.Dashboard(["ip", "netns", "exec", cls.server_ns, SWEEP], cls.db,
                                     bind=net + "1:0", env=env)
        cls.host = net + "1"
        cls.port = int(cls.dash.url.rstrip("/").rsplit(":", 1)[1])
        cls.host_header = cls.host
        cls.prefix = ("ip", "netns", "exec", cls.client_ns)
        cls.sources = (net + "2", net + "3", net + "4")
        cls.pid = server_pid(cls.dash)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "dash", None):
            cls.dash.stop()
        for ns in cls.made:  # deleting a namespace deletes its end of the veth pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        cls.tmp.cleanup()

    def test_a_request_without_the_token_is_refused(self):
        r = subprocess.run([*self.prefix, "python3", "-c",
                            "import urllib.request,urllib.error\n"
                            "try: urllib.request.urlopen('http://%s:%d/api/studies', timeout=10)\n"
                            "except urllib.error.HTTPError as e: print(e.code)" %
                            (self.host, self.port)], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.stdout.strip(), "401")


if __name__ == "__main__":
    SWEEP = os.path.abspath(sys.argv[1])
    NETNS = "--netns" in sys.argv[2:]
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(NetnsTest if NETNS else LoopbackTest)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    sys.exit(77 if result.skipped else 0)
