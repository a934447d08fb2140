"""A tiny CRAN-style repository for Sandpit's tests (stdlib only, no network but its own port).

It builds a few R source packages in memory (<name>/DESCRIPTION, NAMESPACE and R/<name>.R, gzip, fixed
timestamps so the bytes and checksums are the same on every start): pure R, so R installs them with no
compiler. Served on port 8080 as R's install.packages() reads a repository:

  /src/contrib/PACKAGES, /src/contrib/PACKAGES.gz   the index (Debian control format: Package, Version, Imports, MD5sum …)
  /src/contrib/<name>_<version>.tar.gz             a source package

Anything else (PACKAGES.rds too: R then reads PACKAGES.gz) answers 404.
It prints one line "ready <port>" on stdout once it listens.
"""

import gzip
import hashlib
import io
import sys
import tarfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

PORT = 8080
MTIME = 1704067200  # 2024-01-01: fixed, so tarball bytes never change

PACKAGES = [
    {
        "name": "sandpitdemo",
        "version": "1.0.0",
        "imports": [],
        "exports": ["answer", "greet"],
        "code": 'answer <- function() 42L\ngreet <- function(name) paste("hello", name)\n',
    },
    {
        "name": "sandpitdemoplus",
        "version": "0.2.0",
        "imports": ["sandpitdemo"],
        "exports": ["double_answer"],
        "code": "double_answer <- function() 2L * sandpitdemo::answer()\n",
    },
]


def tar_entry(archive, path, data):
    info = tarfile.TarInfo(path)
    info.size = len(data)
    info.mtime = MTIME
    info.mode = 0o644
    info.uname = info.gname = ""
    archive.addfile(info, io.BytesIO(data))


def description(package):
    lines = [
        "Package: %s" % package["name"],
        "Type: Package",
        "Title: A Demo Package Served by Sandpit's Test Repository",
        "Version: %s" % package["version"],
        "Author: Sandpit tests",
        "Maintainer: Sandpit tests <tests@sandpit.invalid>",
        "Description: Exists only in Sandpit's tests.",
        "License: GPL-3",
        "Encoding: UTF-8",
        "NeedsCompilation: no",
    ]
    if package["imports"]:
        lines.append("Imports: %s" % ", ".join(package["imports"]))
    return "\n".join(lines) + "\n"


def build_tarball(package):
    """The source package R installs: every file under <name>/."""
    name = package["name"]
    namespace = "".join("export(%s)\n" % e for e in package["exports"])
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        tar_entry(archive, "%s/DESCRIPTION" % name, description(package).encode("utf-8"))
        tar_entry(archive, "%s/NAMESPACE" % name, namespace.encode("utf-8"))
        tar_entry(archive, "%s/R/%s.R" % (name, name), package["code"].encode("utf-8"))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=MTIME) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


TARBALLS = {}  # "<name>_<version>.tar.gz" -> bytes
INDEX_ENTRIES = []
for _package in PACKAGES:
    _data = build_tarball(_package)
    _file = "%s_%s.tar.gz" % (_package["name"], _package["version"])
    TARBALLS[_file] = _data
    _entry = ["Package: %s" % _package["name"], "Version: %s" % _package["version"]]
    if _package["imports"]:
        _entry.append("Imports: %s" % ", ".join(_package["imports"]))
    _entry += ["License: GPL-3", "MD5sum: %s" % hashlib.md5(_data).hexdigest(), "NeedsCompilation: no"]
    INDEX_ENTRIES.append("\n".join(_entry) + "\n")
INDEX = "\n".join(INDEX_ENTRIES).encode("utf-8")
INDEX_GZ = gzip.compress(INDEX, mtime=MTIME)


class Handler(BaseHTTPRequestHandler):
    server_version = "sandpit-test-cran/1"

    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = unquote(self.path.split("?", 1)[0].split("#", 1)[0])
        if path == "/src/contrib/PACKAGES":
            return self.send(200, INDEX, "text/plain; charset=utf-8")
        if path == "/src/contrib/PACKAGES.gz":
            return self.send(200, INDEX_GZ, "application/x-gzip")
        prefix = "/src/contrib/"
        if path.startswith(prefix) and path[len(prefix):] in TARBALLS:
            return self.send(200, TARBALLS[path[len(prefix):]], "application/x-gzip")
        return self.send(404, b"Not found\n", "text/plain")

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
