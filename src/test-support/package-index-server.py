"""A tiny PEP 503 package index for Sandpit's tests (stdlib only, no network but its own port).

It builds a few pure-Python wheels in memory (METADATA, WHEEL and RECORD with sha256 hashes, so pip
accepts them) and serves them on port 8080:

  /simple/                   the project list
  /simple/<normalized-name>/ links ../../files/<wheel>#sha256=<hash>
  /files/<wheel>             the wheel
  /health                    "ok"

It prints one line "ready <port>" on stdout once it listens.

Private index mode (the secrets tests): with INDEX_TLS_CERT and INDEX_TLS_KEY (PEM text) it serves HTTPS on
INDEX_PORT (default 8443) instead, and with INDEX_AUTH_SHA256 it answers 401 to every request but /health whose
Authorization header's sha256 (hex) is not that one (the value itself is never given to it).
"""

import base64
import hashlib
import html
import io
import os
import re
import ssl
import sys
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = 8080
# Fixed timestamps keep the wheels' bytes (and hashes) the same on every start.
ZIP_DATE = (2024, 1, 1, 0, 0, 0)

PROJECTS = [
    {
        "name": "sandpit_demo_a",
        "version": "0.9.0",
        "requires": [],
        "modules": {"__init__.py": 'VALUE = 41\n\n\ndef greet(name):\n    return "hello (old) " + name\n'},
    },
    {
        "name": "sandpit_demo_a",
        "version": "1.0.0",
        "requires": [],
        "modules": {"__init__.py": 'VALUE = 42\n\n\ndef greet(name):\n    return "hello " + name\n'},
    },
    {
        "name": "sandpit_demo_b",
        "version": "2.1.0",
        "requires": ["sandpit_demo_a>=1.0"],
        "modules": {
            "__init__.py": "import sandpit_demo_a\n\n\ndef answer():\n    return sandpit_demo_a.VALUE * 2\n",
        },
    },
]


def normalize(name):
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def build_wheel(project):
    """Returns (filename, bytes) of a py3-none-any wheel for the project."""
    dist = project["name"].replace("-", "_")
    version = project["version"]
    info = f"{dist}-{version}.dist-info"
    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version}",
        "Summary: A demo package served by Sandpit's test index",
    ]
    metadata += [f"Requires-Dist: {r}" for r in project["requires"]]
    files = {f"{dist}/{path}": text.encode("utf-8") for path, text in project["modules"].items()}
    files[f"{info}/METADATA"] = ("\n".join(metadata) + "\n").encode("utf-8")
    files[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: sandpit-test-index\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode("utf-8")
    files[f"{info}/top_level.txt"] = (dist + "\n").encode("utf-8")
    record = [f"{path},{record_hash(data)},{len(data)}" for path, data in files.items()]
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode("utf-8")

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=ZIP_DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return f"{dist}-{version}-py3-none-any.whl", buffer.getvalue()


FILES = {}  # wheel filename -> bytes
INDEX = {}  # normalized name -> [(filename, sha256 hex)]
for _project in PROJECTS:
    _filename, _data = build_wheel(_project)
    FILES[_filename] = _data
    INDEX.setdefault(normalize(_project["name"]), []).append((_filename, hashlib.sha256(_data).hexdigest()))


def page(title, links):
    anchors = "\n".join(f'<a href="{html.escape(href)}">{html.escape(text)}</a><br>' for href, text in links)
    return (
        f'<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0">'
        f"<title>{html.escape(title)}</title></head><body>\n{anchors}\n</body></html>\n"
    ).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    server_version = "sandpit-test-index/1"

    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == "/health":
            return self.send(200, b"ok\n", "text/plain")
        wanted = os.environ.get("INDEX_AUTH_SHA256")
        if wanted:
            got = hashlib.sha256(self.headers.get("Authorization", "").encode("utf-8")).hexdigest()
            if got != wanted:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="sandpit-test-index"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
        if path in ("/simple", "/simple/"):
            return self.send(200, page("Simple index", [(f"{n}/", n) for n in sorted(INDEX)]), "text/html")
        m = re.fullmatch(r"/simple/([^/]+)/?", path)
        if m:
            name = normalize(m.group(1))
            if name not in INDEX:
                return self.send(404, b"not found\n", "text/plain")
            if not path.endswith("/") or m.group(1) != name:
                return self.redirect(f"/simple/{name}/")
            links = [(f"../../files/{f}#sha256={h}", f) for f, h in INDEX[name]]
            return self.send(200, page(f"Links for {name}", links), "text/html")
        m = re.fullmatch(r"/files/([^/]+)", path)
        if m and m.group(1) in FILES:
            return self.send(200, FILES[m.group(1)], "application/octet-stream")
        return self.send(404, b"not found\n", "text/plain")

    def send(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location):
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):  # noqa: A002 (http.server's signature)
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))


def main():
    cert, key = os.environ.get("INDEX_TLS_CERT"), os.environ.get("INDEX_TLS_KEY")
    port = int(os.environ.get("INDEX_PORT", "8443" if cert else str(PORT)))
    server = ThreadingHTTPServer(("0.0.0.0", port), Handler)
    server.daemon_threads = True
    if cert and key:
        with open("/tmp/index-cert.pem", "w") as out:
            out.write(cert)
        with open("/tmp/index-key.pem", "w") as out:
            out.write(key)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain("/tmp/index-cert.pem", "/tmp/index-key.pem")
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"ready {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
