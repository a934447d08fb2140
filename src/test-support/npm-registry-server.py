"""A tiny npm registry for Sandpit's tests (stdlib only, no network but its own port).

It builds a few npm package tarballs in memory (package/package.json + package/index.js, gzip, fixed
timestamps so the bytes and hashes are the same on every start) and serves them on port 8080:

  /<name>, /@scope%2f<name>     the packument: versions, dist-tags, dist.tarball / shasum / integrity
  /<name>/-/<file>.tgz           a tarball (scoped: /@scope/<name>/-/<file>.tgz)
  /-/ping                        {}
  /-/sandpit/packages            the package names, as a JSON list (for the tests' probe)

Tarball URLs are absolute, made from the request's Host header, so they work under any alias.
Unknown names answer 404 with {"error": "Not found"}, as the public registry does.
It prints one line "ready <port>" on stdout once it listens.
"""

import base64
import gzip
import hashlib
import io
import json
import re
import sys
import tarfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

PORT = 8080
MTIME = 1704067200  # 2024-01-01: fixed, so tarball bytes never change

PACKAGES = [
    {
        "name": "sandpit-demo-js",
        "version": "0.9.0",
        "dependencies": {},
        "index": "exports.answer = 41;\nexports.greet = (name) => 'hello (old) ' + name;\n",
    },
    {
        "name": "sandpit-demo-js",
        "version": "1.0.0",
        "dependencies": {},
        "index": "exports.answer = 42;\nexports.greet = (name) => 'hello ' + name;\n",
    },
    {
        "name": "sandpit-demo-js-plus",
        "version": "2.1.0",
        "dependencies": {"sandpit-demo-js": "^1.0.0"},
        "index": "const demo = require('sandpit-demo-js');\nexports.double = () => demo.answer * 2;\n",
    },
    {
        "name": "@sandpit/scoped-demo",
        "version": "1.2.3",
        "dependencies": {},
        "index": "module.exports = { scoped: true };\n",
    },
]


def tar_entry(archive, path, data):
    info = tarfile.TarInfo(path)
    info.size = len(data)
    info.mtime = MTIME
    info.mode = 0o644
    info.uname = info.gname = ""
    archive.addfile(info, io.BytesIO(data))


def build_tarball(package):
    """The .tgz npm expects: every file under package/."""
    manifest = {
        "name": package["name"],
        "version": package["version"],
        "description": "A demo package served by Sandpit's test registry",
        "main": "index.js",
        "license": "MIT",
        "dependencies": package["dependencies"],
    }
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        tar_entry(archive, "package/package.json", (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
        tar_entry(archive, "package/index.js", package["index"].encode("utf-8"))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=MTIME) as gz:
        gz.write(raw.getvalue())
    return manifest, out.getvalue()


def tarball_name(name, version):
    return "%s-%s.tgz" % (name.split("/")[-1], version)


TARBALLS = {}  # "<name>/-/<file>" -> bytes
PACKUMENTS = {}  # name -> {"versions": {version: (manifest, shasum, integrity)}}
for _package in PACKAGES:
    _manifest, _data = build_tarball(_package)
    _name, _version = _package["name"], _package["version"]
    TARBALLS["%s/-/%s" % (_name, tarball_name(_name, _version))] = _data
    _integrity = "sha512-" + base64.b64encode(hashlib.sha512(_data).digest()).decode("ascii")
    PACKUMENTS.setdefault(_name, {})[_version] = (_manifest, hashlib.sha1(_data).hexdigest(), _integrity)


def version_key(version):
    return tuple(int(part) for part in version.split("."))


def packument(name, base):
    versions = {}
    for version, (manifest, shasum, integrity) in PACKUMENTS[name].items():
        versions[version] = dict(
            manifest,
            _id="%s@%s" % (name, version),
            dist={
                "tarball": "%s/%s/-/%s" % (base, name, tarball_name(name, version)),
                "shasum": shasum,
                "integrity": integrity,
            },
        )
    latest = max(PACKUMENTS[name], key=version_key)
    return {"_id": name, "name": name, "dist-tags": {"latest": latest}, "versions": versions}


class Handler(BaseHTTPRequestHandler):
    server_version = "sandpit-test-registry/1"

    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = unquote(self.path.split("?", 1)[0].split("#", 1)[0])
        if path == "/-/ping":
            return self.send_json(200, {})
        if path == "/-/sandpit/packages":
            return self.send_json(200, sorted(PACKUMENTS))
        m = re.fullmatch(r"/((?:@[a-z0-9._~-]+/)?[a-z0-9._~-]+)/-/([^/]+\.tgz)", path)
        if m:
            key = "%s/-/%s" % (m.group(1), m.group(2))
            if key in TARBALLS:
                return self.send(200, TARBALLS[key], "application/octet-stream")
            return self.send_json(404, {"error": "Not found"})
        m = re.fullmatch(r"/((?:@[a-z0-9._~-]+/)?[a-z0-9._~-]+)/?", path)
        if m and m.group(1) in PACKUMENTS:
            base = "http://%s" % (self.headers.get("Host") or "npm-registry:%d" % PORT)
            return self.send_json(200, packument(m.group(1), base))
        return self.send_json(404, {"error": "Not found"})

    def send_json(self, status, value):
        self.send(status, (json.dumps(value) + "\n").encode("utf-8"), "application/json")

    def send(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 (http.server's signature)
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))


def main():
    server = ThreadingHTTPServer(("0.0.0.0", PORT), Handler)
    server.daemon_threads = True
    print("ready %d" % PORT, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
