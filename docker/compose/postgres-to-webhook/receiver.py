"""A sample webhook receiver for Sluice: checks each delivery's Standard Webhooks signature with the
subscription's secret, refuses what it cannot verify, drops what it has seen (by webhook-id), and
prints the changes. Python's standard library only; a real service may use the `standardwebhooks`
package instead (see docs/webhooks.md)."""

import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))
TOLERANCE_SECONDS = 5 * 60
seen = set()
lock = threading.Lock()


def say(line):
    with lock:  # one line at a time from the server's threads
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def verified(headers, body):
    msg_id, timestamp, signatures = (headers.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not (msg_id and timestamp and signatures):
        return False
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    expected = base64.b64encode(hmac.new(SECRET, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(expected, s.split(",", 1)[1]) for s in signatures.split() if s.startswith("v1,"))


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if not verified(self.headers, body):
            say(f"REFUSED {self.headers.get('webhook-id')}: the signature does not verify")
            self.send_response(401)
            self.end_headers()
            return
        msg_id = self.headers["webhook-id"]
        with lock:
            again = msg_id in seen
            seen.add(msg_id)
        if again:
            say(f"again    {msg_id} (already handled)")
        else:
            payload = json.loads(body)
            for change in payload if isinstance(payload, list) else [payload]:
                row = change.get("after") or change.get("before") or {}
                say(f"{change['operation']:8} {change.get('schema')}.{change.get('table')} key={json.dumps(change.get('key'))} "
                    f"{json.dumps(row)[:160]}")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    say(f"receiving on port {port}")
    ThreadingHTTPServer(("", port), Receiver).serve_forever()
