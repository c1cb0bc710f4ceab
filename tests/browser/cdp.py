#!/usr/bin/env python3
"""A small Chrome DevTools Protocol client, Python 3 standard library only.

Drives headless Chromium over --remote-debugging-pipe (JSON messages ended by
a NUL byte; Chromium reads commands on its fd 3 and writes replies and events
on its fd 4), so no websocket is needed. Used by the browser tests in ctest and
by bench/dashboard/render.py.

    with Browser.launch() as browser:
        page = browser.new_page()
        page.navigate("http://127.0.0.1:8080/")
        page.wait_for("document.body.dataset.ready === '1'")
        assert not page.errors, page.errors
        assert png_colors(page.screenshot()) > 10

A reader thread reads the pipe and dispatches: replies to the waiting command,
events to their page (by sessionId), so every wait has a timeout, no event is
lost while a command waits for its reply, and a Chromium that dies is reported
with the tail of its stderr.
"""

import base64
import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib


class BrowserMissing(Exception):
    """No Chromium/Chrome binary was found."""


class BrowserDied(RuntimeError):
    """Chromium exited or closed its pipe."""


class JsError(RuntimeError):
    """An evaluated expression threw."""


def find_browser():
    """$SWEEP_CHROMIUM, else the first of chromium, chromium-browser, google-chrome on PATH."""
    env = os.environ.get("SWEEP_CHROMIUM")
    if env:
        return env if os.path.isfile(env) and os.access(env, os.X_OK) else shutil.which(env)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, proc, to_chrome, from_chrome, tmp, stderr_path):
        self._proc = proc
        self._out = to_chrome            # our write end (Chromium's fd 3)
        self._in = from_chrome           # our read end (Chromium's fd 4)
        self._tmp = tmp
        self._stderr_path = stderr_path
        self._lock = threading.Condition()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._replies = {}               # id -> message
        self._abandoned = set()          # ids whose caller timed out
        self._pages = {}                 # sessionId -> Page
        self._dead = None                # reason string once the pipe is gone
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    @staticmethod
    def launch(width=1280, height=900):
        exe = find_browser()
        if not exe:
            raise BrowserMissing("no Chromium found: set SWEEP_CHROMIUM or install chromium")
        tmp = tempfile.mkdtemp(prefix="sweep-cdp-")
        stderr_path = os.path.join(tmp, "stderr.log")
        args = [exe, "--headless=new", "--remote-debugging-pipe", "--disable-gpu",
                "--user-data-dir=" + os.path.join(tmp, "profile"), "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--mute-audio",
                "--hide-scrollbars", "--window-size=%d,%d" % (width, height), "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")
        cmd_r, cmd_w = os.pipe()         # we write commands, Chromium reads fd 3
        evt_r, evt_w = os.pipe()         # Chromium writes fd 4, we read

        def child_fds():
            # Move the pipe ends out of the way first (one may already be 3 or 4).
            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(evt_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        with open(stderr_path, "wb") as err:
            try:
                proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                        pass_fds=(3, 4, cmd_r, evt_w), preexec_fn=child_fds,
                                        start_new_session=True)
            except BaseException:
                for fd in (cmd_r, cmd_w, evt_r, evt_w):
                    os.close(fd)
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        os.close(cmd_r)
        os.close(evt_w)
        browser = Browser(proc, cmd_w, evt_r, tmp, stderr_path)
        browser._size = (width, height)
        try:
            browser.send("Browser.getVersion", timeout=30)
        except BaseException:
            browser.close()
            raise
        return browser

    # --- plumbing -------------------------------------------------------
    def _stderr_tail(self, n=3000):
        try:
            with open(self._stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - n))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _read_loop(self):
        buf = b""
        try:
            while True:
                chunk = os.read(self._in, 1 << 16)
                if not chunk:
                    break
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    if raw:
                        self._dispatch(json.loads(raw))
        except Exception as e:           # OSError on close, or a bad message
            reason = "reader: %r" % e
        else:
            reason = "Chromium closed its pipe"
        with self._lock:
            self._dead = reason
            self._lock.notify_all()

    def _dispatch(self, msg):
        if "id" in msg:
            with self._lock:
                if msg["id"] in self._abandoned:
                    self._abandoned.discard(msg["id"])
                else:
                    self._replies[msg["id"]] = msg
                    self._lock.notify_all()
            return
        page = self._pages.get(msg.get("sessionId"))
        if page is not None:
            page._on_event(msg.get("method", ""), msg.get("params", {}))

    def _died(self, what):
        try:
            code = self._proc.wait(1)
        except subprocess.TimeoutExpired:
            code = None
        return BrowserDied("%s: %s (exit code %s); Chromium stderr tail:\n%s"
                           % (what, self._dead, code, self._stderr_tail()))

    def send(self, method, params=None, session=None, timeout=30):
        """Sends one command and returns its result; raises on error, death or timeout."""
        with self._lock:
            if self._dead:
                raise self._died(method)
            self._next_id += 1
            mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        with self._write_lock:
            try:
                while data:
                    data = data[os.write(self._out, data):]
            except OSError as e:
                raise self._died("%s: write failed (%s)" % (method, e))
        deadline = time.monotonic() + timeout
        with self._lock:
            while mid not in self._replies:
                if self._dead:
                    raise self._died(method)
                left = deadline - time.monotonic()
                if left <= 0:
                    self._abandoned.add(mid)
                    raise TimeoutError("CDP %s: no reply in %gs" % (method, timeout))
                self._lock.wait(min(left, 0.5))
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError("CDP %s failed: %s" % (method, reply["error"]))
        return reply.get("result", {})

    # --- public ---------------------------------------------------------
    def new_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        self._pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(domain + ".enable")
        w, h = self._size
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        return page

    def close(self):
        if self._closed:
            return
        self._closed = True
        if not self._dead:
            try:
                self.send("Browser.close", timeout=3)
            except Exception:
                pass
            try:
                self._proc.wait(3)
            except subprocess.TimeoutExpired:
                pass
        try:                             # leftover helpers share the process group
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        deadline = time.monotonic() + 5   # let the killed helpers go before returning
        while time.monotonic() < deadline:
            try:
                os.killpg(self._proc.pid, 0)
            except OSError:
                break
            time.sleep(0.05)
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _remote_text(obj):
    """A readable text for a Runtime.RemoteObject."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "?")


class Page:
    def __init__(self, browser, target, session):
        self.browser = browser
        self.target = target
        self.session = session
        self.errors = []                 # console errors, exceptions, failed loads, HTTP >= 400
        self.requests = []               # every URL requested
        self._urls = {}                  # requestId -> URL
        self._loads = 0                  # Page.loadEventFired count
        self._cond = browser._lock

    def _on_event(self, method, p):      # runs on the reader thread
        if method == "Page.loadEventFired":
            with self._cond:
                self._loads += 1
                self._cond.notify_all()
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            self._urls[p.get("requestId")] = url
            self.requests.append(url)
        elif method == "Network.responseReceived":
            r = p.get("response", {})
            if r.get("status", 0) >= 400:
                self.errors.append("HTTP %s %s" % (r.get("status"), r.get("url")))
        elif method == "Network.loadingFailed":
            self.errors.append("load failed: %s %s%s" % (
                p.get("errorText"), self._urls.get(p.get("requestId"), "?"),
                " (canceled)" if p.get("canceled") else ""))
        elif method == "Runtime.consoleAPICalled":
            if p.get("type") in ("error", "assert"):
                self.errors.append("console.%s: %s" % (
                    p["type"], " ".join(_remote_text(a) for a in p.get("args", []))))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            ex = d.get("exception", {})
            self.errors.append("exception: %s" % (ex.get("description") or d.get("text")))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") == "error":
                self.errors.append("log: %s %s" % (e.get("text"), e.get("url", "")))

    def send(self, method, params=None, timeout=30):
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def navigate(self, url, timeout=30):
        """Loads url and waits for its load event (not for a same-document #hash change)."""
        with self._cond:
            before = self._loads
        deadline = time.monotonic() + timeout
        r = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if r.get("errorText"):
            raise RuntimeError("navigate %s: %s" % (url, r["errorText"]))
        if "loaderId" not in r:          # same-document (#fragment) navigation: no load event
            return
        with self._cond:
            while self._loads == before:
                if self.browser._dead:
                    raise self.browser._died("navigate " + url)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("navigate %s: no load event in %gs; errors: %s"
                                       % (url, timeout, self.errors))
                self._cond.wait(min(left, 0.5))

    def eval(self, expr, timeout=30):
        """The value of a JS expression (promises awaited); raises JsError if it throws."""
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise JsError("%s: %s" % (expr, d.get("exception", {}).get("description")
                                      or d.get("text")))
        return r.get("result", {}).get("value")

    def wait_for(self, expr, timeout=30, interval=0.05):
        """Polls expr until it is truthy and returns its value. A throw counts as not yet."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            left = deadline - time.monotonic()
            try:
                v = self.eval(expr, timeout=max(1.0, left))
                if v:
                    return v
                last = v
            except JsError as e:
                last = e
            except TimeoutError:
                pass
            if time.monotonic() >= deadline:
                raise TimeoutError("wait_for %s: not true in %gs (last: %r); errors: %s"
                                   % (expr, timeout, last, self.errors))
            time.sleep(interval)

    def screenshot(self, clip=None):
        """The viewport as PNG bytes; or clip=(x, y, w, h), CSS pixels from the document's
        top left (getBoundingClientRect() plus scrollX/scrollY)."""
        params = {"format": "png"}
        if clip:
            x, y, w, h = clip
            params["clip"] = {"x": x, "y": y, "width": w, "height": h, "scale": 1}
        return base64.b64decode(self.send("Page.captureScreenshot", params, timeout=60)["data"])

    def close(self):
        self.browser._pages.pop(self.session, None)
        self.browser.send("Target.closeTarget", {"targetId": self.target})


def png_colors(png):
    """Number of distinct colours in an 8-bit RGB/RGBA non-interlaced PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d"
                         % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    colors = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:                       # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:                     # Up
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:                     # Average
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((a + prev[i]) >> 1)) & 255
        elif f == 4:                     # Paeth
            for i in range(stride):
                if i >= bpp:
                    a, c = line[i - bpp], prev[i - bpp]
                else:
                    a = c = 0
                b = prev[i]
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif f != 0:
            raise ValueError("bad PNG filter %d" % f)
        b = bytes(line)
        colors.update(b[i:i + bpp] for i in range(0, stride, bpp))
        prev = line
    return len(colors)


if __name__ == "__main__":
    html = """<!doctype html><body style="margin:0"><canvas id=c width=400 height=300></canvas>
<script>
const g = document.getElementById('c').getContext('2d');
const grad = g.createLinearGradient(0, 0, 400, 0);
grad.addColorStop(0, 'red'); grad.addColorStop(1, 'blue');
g.fillStyle = grad; g.fillRect(0, 0, 400, 150);
g.fillStyle = '#0a0'; g.beginPath(); g.arc(200, 225, 60, 0, 7); g.fill();
console.error('self-test error', 42);
document.body.dataset.ready = '1';
</script></body>"""
    from urllib.parse import quote
    t0 = time.monotonic()
    with Browser.launch(800, 600) as browser:
        page = browser.new_page()
        page.navigate("data:text/html," + quote(html))
        print("ready:", page.wait_for("document.body.dataset.ready === '1'"))
        print("2 + 2 =", page.eval("2 + 2"), "| promise:", page.eval("Promise.resolve('ok')"))
        try:
            page.eval("null.x")
        except JsError as e:
            print("throws:", str(e).splitlines()[0])
        shot = page.screenshot()
        t1 = time.monotonic()
        n = png_colors(shot)
        print("screenshot: %d bytes, %d colours (decoded in %.2fs)" % (len(shot), n, time.monotonic() - t1))
        print("errors:", page.errors)
        print("requests:", [u[:40] for u in page.requests])
        ok = n > 50 and any("self-test error 42" in e for e in page.errors)
    print("OK" if ok else "FAILED", "in %.1fs" % (time.monotonic() - t0))
    sys.exit(0 if ok else 1)
