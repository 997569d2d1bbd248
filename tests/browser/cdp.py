"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``).

No websocket library and no browser download: Debian's chromium reads commands on fd 3 and
writes replies and events on fd 4, NUL-separated JSON.  Console errors and uncaught
exceptions are collected from the protocol's events, not scraped from logs.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--remote-debugging-pipe"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable: str, timeout: float = 60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="verify-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def child_fds():  # the protocol's fixed descriptors: 3 = commands in, 4 = replies out
            a, b = os.dup(cmd_r), os.dup(out_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=child_fds, pass_fds=(3, 4),  # kept open after preexec_fn has placed them
        )
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict] = []
        self.dialogs: list[dict] = []  # every alert/confirm/prompt a page opened (each dismissed at once)

    # ------------------------------------------------------------------ protocol
    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next += 1
        my_id = self._next  # a dialog answered while waiting takes the next id
        msg = {"id": my_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == my_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def _event(self, ev: dict) -> None:
        self.events.append(ev)
        if ev.get("method") == "Page.javascriptDialogOpening":
            # a dialog blocks its page until answered: record it, dismiss it, and let the page go on
            self.dialogs.append(ev["params"])
            self._next += 1
            msg = {"id": self._next, "method": "Page.handleJavaScriptDialog", "params": {"accept": False}, "sessionId": ev.get("sessionId")}
            os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")

    def wait_for(self, method: str, session: str | None = None) -> dict:
        deadline = time.monotonic() + self.timeout
        for ev in self.events:
            if ev.get("method") == method and (session is None or ev.get("sessionId") == session):
                return ev
        while True:
            ev = self._read(deadline)
            self._event(ev)
            if ev.get("method") == method and (session is None or ev.get("sessionId") == session):
                return ev

    def _read(self, deadline) -> dict:
        import select

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium exited: {self.proc.stderr.read().decode(errors='replace')[-2000:]}")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    # ------------------------------------------------------------------ a page
    def open(self, url: str, width: int = 1200, height: int = 900, network: bool = False) -> "Page":
        """A page at ``url``, loaded; ``network``: record its requests too (``Network.requestWillBeSent``)."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log") + (("Network",) if network else ()):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        return Page(self, session)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._out_r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session

    def evaluate(self, expression: str):
        r = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, self.session)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"].get("value")

    def events(self, method: str) -> list[dict]:
        """The params of every event ``method`` of this page so far."""
        self.evaluate("0")  # drain events that arrived before now
        return [ev.get("params", {}) for ev in self.browser.events if ev.get("sessionId") == self.session and ev.get("method") == method]

    def screenshot(self, path) -> None:
        data = self.browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, self.session)["data"]
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(data))

    def console_errors(self) -> list[str]:
        """Uncaught exceptions, console.error/assert calls and error-level log entries so far."""
        self.evaluate("0")  # drain events that arrived before now
        out = []
        for ev in self.browser.events:
            if ev.get("sessionId") != self.session:
                continue
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text", "exception"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out
