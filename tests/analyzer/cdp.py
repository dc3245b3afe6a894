#!/usr/bin/env python3
# A minimal Chrome DevTools Protocol client on the standard library (a WebSocket client of RFC 6455 text
# frames): starts headless Chromium, navigates, evaluates JavaScript in real time, takes screenshots.
import base64
import json
import os
import re
import socket
import struct
import subprocess
import time
import urllib.parse
import urllib.request


class Browser:
    def __init__(self, binary, profile, width=1600, height=1000, timeout=60):
        self.log = open(os.path.join(profile, "chromium.log"), "w+")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             f"--user-data-dir={profile}", f"--window-size={width},{height}", "--remote-debugging-port=0",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + timeout
        url = None
        while url is None:  # Chromium names its endpoint on stderr
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.1)
            self.log.seek(0)
            m = re.search(r"DevTools listening on (ws://\S+)", self.log.read())
            url = m and m.group(1)
        port = urllib.parse.urlparse(url).port
        # the page target's WebSocket (the browser endpoint cannot evaluate in a page)
        for _ in range(int(timeout * 10)):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                    pages = [t for t in json.load(r) if t["type"] == "page"]
                if pages:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("chromium has no page target")
        self.sock = self._connect(pages[0]["webSocketDebuggerUrl"], timeout)
        self.next_id = 0

    @staticmethod
    def _connect(url, timeout):
        u = urllib.parse.urlparse(url)
        s = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace"))
        return s

    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket")
            data += chunk
        return data

    def _send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                                bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _recv(self):
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(n)
            if b0 & 0x0F in (0x1, 0x0):
                message += payload
                if b0 & 0x80:
                    return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            m = self._recv()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    def eval(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return r.get("result", {}).get("value")

    def wait_for(self, expression, timeout):
        """Poll expression until it is truthy; its value, or None at the deadline."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            v = self.eval(expression)
            if v:
                return v
            time.sleep(0.2)
        return None

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.sock.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()
