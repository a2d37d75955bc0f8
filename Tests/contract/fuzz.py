#!/usr/bin/env python3
"""The API contract fuzzed against a live server (issue 14): schemathesis reads the OpenAPI
document the server serves (`GET /api/openapi.json`) and sends generated requests to every
operation; each answer must not be a 5xx and must agree with the document (its status declared,
its content type, its body's schema, its declared headers).

A real `gallery serve` on a temporary data folder and a free loopback port, with the sample
gallery (real images), an admin made with `gallery user add`, a second gallery, a share link and
two more accounts. schemathesis draws path parameters half of the time from the ids that exist
(dictionaries below) and otherwise at random, so both the handlers and the refusals are reached.

Three passes:
1. Everything but the live stream, as a script would call it: an admin's write-scope API token.
   (`GET …/events` and `GET /api/galleries/events` never end by themselves: LiveStreamTests and
   GalleryListStreamTests cover them.) Routes only a browser session
   may use (managing credentials; the document's security says so) get no credentials here: 401.
2. Valid requests only (fuzzing phase) on the operations that write (batches, uploads, URL drops,
   members, links, duplicates): in pass 1 most generated batches hold one impossible operation or
   a stale baseVersion, so this makes sure the handlers behind the refusals are reached.
3. The credential routes a browser session uses (tokens, second factor, passwords), signed in
   with the session cookie and the Origin a browser sends. Not `POST /api/logout` and
   `POST /api/logout-everywhere`: they end the session the pass runs on (pass 1 calls them with
   the token, where they change nothing), so everything after them would be a 401.
The deletes (`DELETE …/galleries/{gallery}`, `DELETE /api/users/{user}`) draw only from what was
made to be deleted, so the data the other operations use lives through the run.
What keeps the run meaningful: an account cannot remove itself over the API (and the last
admin cannot be removed), so the admin behind the token lives through passes 1 and 2 (checked
after them); the session of pass 3 still works at the end (it reads /metrics). Pass 3 may revoke
the token (DELETE /api/tokens/{token}); nothing uses it after.

Usage: fuzz.py [--gallery PATH] [--examples N] [--seed N]   (needs schemathesis in this Python)
"""
import argparse
import http.cookiejar
import json
import re
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADMIN = ("fuzz-admin", "a fuzzing password")
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,"
          "unsupported_method,allow_header_conformance")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, database=None):
        self.binary = binary
        self.database = ["--database", database] if database else []
        self.data = tempfile.mkdtemp(prefix="gallery-fuzz-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.proc = None

    def cli(self, *args, stdin=None):
        return subprocess.run([str(self.binary), *args, "--data", self.data, *self.database], input=stdin, check=True, capture_output=True, timeout=120)

    def start(self):
        self.log = open(Path(self.data) / "server.log", "ab")
        self.proc = subprocess.Popen(
            [str(self.binary), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
             "--web", str(ROOT / "Web"), "--wasm", str(ROOT / ".build-wasm" / "engine.wasm"), "--log-level", "warning", *self.database],
            cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1):
                    return
            except Exception:
                time.sleep(0.2)
        raise RuntimeError("the server did not start:\n" + self.tail())

    def tail(self):
        return (Path(self.data) / "server.log").read_text(errors="replace")[-4000:]

    def api(self, method, path, body=None, headers=None, raw=None, content_type=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        h = {"Origin": self.url, **({"Content-Type": content_type or "application/json"} if data else {}), **(headers or {})}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        with self.opener.open(req, timeout=30) as r:
            text = r.read()
            return json.loads(text) if text else None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def seed(server):
    """Accounts, a token, a second gallery with a link; answers the ids schemathesis draws from."""
    server.cli("user", "add", ADMIN[0], "--admin", "--password-stdin", stdin=(ADMIN[1] + "\n").encode())
    member = server.cli("user", "add", "fuzz-member", "--password-stdin", stdin=b"a member password\n")
    victim = server.cli("user", "add", "fuzz-victim", "--password-stdin", stdin=b"a victim password\n")
    server.start()
    server.api("POST", "/api/login", {"name": ADMIN[0], "password": ADMIN[1]})
    token = server.api("POST", "/api/tokens", {"name": "fuzz", "scope": "write"})["token"]
    users = {u["name"]: u["id"] for u in server.api("GET", "/api/users")}
    second = server.api("POST", "/api/galleries", {"name": "Second"})
    server.api("PUT", f"/api/galleries/{second['id']}/members/fuzz-member", {"role": "editor"})
    link = server.api("POST", f"/api/galleries/{second['id']}/links", {"role": "viewer", "allowDownload": True, "showMetadata": True})
    galleries = [g["id"] for g in server.api("GET", "/api/galleries")]
    # DELETE /api/galleries/{gallery} draws only from galleries of its own (see config()).
    doomed = [server.api("POST", "/api/galleries", {"name": f"Doomed {k}"})["id"] for k in range(3)]
    items, sections, hashes = [], [], []
    # The sample gallery's images are made in the background: wait until they are ready.
    deadline = time.time() + 120
    while time.time() < deadline:
        snap = server.api("GET", f"/api/galleries/{galleries[0]}")
        all_items = [i for s in snap["sections"] for i in s["items"]]
        if all_items and all(i["state"] != "pending" for i in all_items):
            break
        time.sleep(0.5)
    for g in galleries:
        snap = server.api("GET", f"/api/galleries/{g}")
        sections += [s["id"] for s in snap["sections"]]
        for s in snap["sections"]:
            items += [i["id"] for i in s["items"]]
            hashes += [i["fileHash"] for i in s["items"] if i.get("fileHash")]
    cookie = next(c.value for c in server.cookies if c.name == "gallery_session")
    return {
        "token": token, "cookie": cookie,
        "gallery": galleries, "item": items, "section": sections, "hash": sorted(set(hashes)) or ["0" * 64],
        "doomed": doomed, "link": [link["id"]], "linkToken": [link["token"]],
        # A dropped URL of this server's own original is made from the stored file, never fetched:
        # URL drops that succeed without the server reaching out to any network.
        "ownImage": [f"{server.url}/api/images/{h}/original" for h in sorted(set(hashes))[:3]], "user": [users["fuzz-victim"]],
        "member": [users["fuzz-member"], "fuzz-member", users["fuzz-victim"]],
    }


def config(server, ids, session):
    """schemathesis.toml: auth, the Origin a browser sends, ids drawn half of the time from what exists."""
    def values(v):
        return json.dumps(v)
    auth = (f'[auth.openapi.session]\napi_key = "{ids["cookie"]}"\n' if session
            else f'[auth.openapi.token]\nbearer = "{ids["token"]}"\n')
    return f"""
request-timeout = 30
{auth}
[headers]
Origin = "{server.url}"

[dictionaries.galleries]
values = {values(ids["gallery"])}
[dictionaries.items]
values = {values(ids["item"])}
[dictionaries.sections]
values = {values(ids["section"])}
[dictionaries.hashes]
values = {values(ids["hash"])}
[dictionaries.links]
values = {values(ids["link"])}
[dictionaries.users]
values = {values(ids["user"])}
[dictionaries.members]
values = {values([str(m) for m in ids["member"]])}
[dictionaries.doomed]
values = {values(ids["doomed"])}
[dictionaries.names]
values = ["grid.jpg", "detail.jpg", "original"]

[parameters]
"path.gallery" = {{ dictionary = "galleries", probability = 0.6 }}
"path.item" = {{ dictionary = "items", probability = 0.6 }}
"path.section" = {{ dictionary = "sections", probability = 0.6 }}
"path.hash" = {{ dictionary = "hashes", probability = 0.6 }}
"path.link" = {{ dictionary = "links", probability = 0.5 }}
"path.name" = {{ dictionary = "names", probability = 0.5 }}
"body.operations[*].items[*]" = {{ dictionary = "items", probability = 0.5 }}
"body.operations[*].item" = {{ dictionary = "items", probability = 0.5 }}
"body.operations[*].section" = {{ dictionary = "sections", probability = 0.5 }}
"body.operations[*].a" = {{ dictionary = "items", probability = 0.5 }}
"body.operations[*].b" = {{ dictionary = "items", probability = 0.5 }}
"body.operations[*].to.section" = {{ dictionary = "sections", probability = 0.5 }}
"body.operations[*].to.before" = {{ dictionary = "items", probability = 0.5 }}
"body.operations[*].to.after" = {{ dictionary = "items", probability = 0.5 }}
"query.section" = {{ dictionary = "sections", probability = 0.5 }}
"query.before" = {{ dictionary = "items", probability = 0.5 }}
"query.after" = {{ dictionary = "items", probability = 0.5 }}
"body.url" = {{ dictionary = "ownImages", probability = 0.5 }}

[dictionaries.ownImages]
values = {values(ids["ownImage"])}
[dictionaries.linkTokens]
values = {values(ids["linkToken"])}

[[operations]]
include-name = ["PUT /api/galleries/{{gallery}}/members/{{user}}", "DELETE /api/galleries/{{gallery}}/members/{{user}}"]
parameters = {{ "path.user" = {{ dictionary = "members", probability = 0.6 }} }}

[[operations]]
include-name = "PATCH /api/users/{{user}}"
parameters = {{ "path.user" = {{ dictionary = "users", probability = 0.6 }} }}

# The deletes draw only from what was made to be deleted (and skip the coverage phase, whose
# boundary values are the smallest ids): a random small id would remove the sample gallery or the
# member account early, and every operation after it would meet only 404s.
[[operations]]
include-name = "DELETE /api/users/{{user}}"
parameters = {{ "path.user" = {{ dictionary = "users", probability = 1.0 }} }}
phases = {{ coverage = {{ enabled = false }} }}

[[operations]]
include-name = ["POST /api/links/open", "GET /s/{{token}}"]
parameters = {{ "body.token" = {{ dictionary = "linkTokens", probability = 0.6 }}, "path.token" = {{ dictionary = "linkTokens", probability = 0.6 }} }}

[[operations]]
include-name = "DELETE /api/galleries/{{gallery}}"
parameters = {{ "path.gallery" = {{ dictionary = "doomed", probability = 1.0 }} }}
phases = {{ coverage = {{ enabled = false }} }}
"""


def run_pass(server, ids, name, examples, seed, session, filters):
    folder = Path(server.data) / f"schemathesis-{name}"
    folder.mkdir()
    (folder / "schemathesis.toml").write_text(config(server, ids, session))
    st = Path(sys.executable).parent / "schemathesis"
    cmd = [str(st), "--config-file", str(folder / "schemathesis.toml"), "run", f"{server.url}/api/openapi.json",
           "--checks", CHECKS, "--max-examples", str(examples), "--seed", str(seed), "--workers", "2",
           "--generation-database", "none", "--no-color", "--suppress-health-check", "all",
           "--report", "junit", "--report-dir", str(folder), *filters]
    print(f"== schemathesis pass {name}: {' '.join(cmd[1:])}", flush=True)
    started = time.time()
    # fuzz_hooks: application/zip bodies (the import) are sent as generated bytes.
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "fuzz_hooks", "PYTHONPATH": str(Path(__file__).parent)}
    result = subprocess.run(cmd, cwd=folder, env=env)
    print(f"== pass {name}: exit {result.returncode} in {time.time() - started:.0f} s", flush=True)
    return result.returncode


def reached(server):
    """What the run reached, from the server's own /metrics: answers by route, method and status.
    Asked with the admin's session (pass 2 may have revoked the token: DELETE /api/tokens/{token})."""
    req = urllib.request.Request(server.url + "/metrics")
    with server.opener.open(req, timeout=30) as r:
        text = r.read().decode()
    table = {}
    for line in text.splitlines():
        if not line.startswith("hb_requests") or "{" not in line:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line[line.index("{"):line.rindex("}")]))
        route, method, status = labels.get("http_route"), labels.get("http_request_method"), labels.get("http_response_status_code")
        if route and method and status:
            key = f"{method} {route}"
            table.setdefault(key, {})
            table[key][status] = table[key].get(status, 0) + int(float(line.rsplit(" ", 1)[1]))
    print("== answers by operation (from /metrics)")
    for key in sorted(table):
        print(f"  {key}: " + ", ".join(f"{st}×{n}" for st, n in sorted(table[key].items())))
    return table


# Operations whose success the run must reach: else the fuzzing only met refusals there.
MUST_SUCCEED = ["POST /api/galleries/{gallery}/batch", "POST /api/galleries/{gallery}/uploads", "POST /api/galleries/{gallery}/urls",
                "GET /api/galleries/{gallery}", "GET /api/galleries/{gallery}/columns", "GET /api/items/{item}",
                "GET /api/images/{hash}/{name}", "PUT /api/galleries/{gallery}/members/{user}", "POST /api/galleries/{gallery}/links",
                "POST /api/galleries", "DELETE /api/galleries/{gallery}", "POST /api/tokens"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gallery", default=os.environ.get("GALLERY_BIN", str(ROOT / ".build" / "debug" / "gallery")))
    parser.add_argument("--examples", type=int, default=int(os.environ.get("FUZZ_EXAMPLES", "50")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "14")))
    parser.add_argument("--keep", action="store_true", help="keep the data folder (reports, server.log)")
    parser.add_argument("--database", help="postgres://… of an empty database: the server's rows there instead of SQLite")
    args = parser.parse_args()
    if args.database is not None and not args.database.startswith(("postgres://", "postgresql://")):
        # An empty value (a failed `createdb` in a script) must not quietly fuzz SQLite instead.
        parser.error(f"--database must be a postgres:// URL, got {args.database!r}")
    print(f"fuzz: the server's rows in {'PostgreSQL' if args.database else 'SQLite'}", flush=True)
    server = Server(Path(args.gallery).resolve(), args.database)
    failed = []
    try:
        ids = seed(server)
        if run_pass(server, ids, "token", args.examples, args.seed, session=False,
                    filters=["--exclude-path", "/api/galleries/{gallery}/events", "--exclude-path", "/api/galleries/events"]):
            failed.append("token")
        # Valid requests only, on the operations that write: in pass 1 most generated batches
        # hold one impossible operation or a stale baseVersion (all or none), so this pass makes
        # sure the handlers behind the refusals are reached too.
        if run_pass(server, ids, "writes", args.examples, args.seed, session=False,
                    filters=["--mode", "positive", "--phases", "fuzzing",
                             "--include-path-regex", "/(batch|uploads|urls|members/\\{user\\}|links|duplicate)$"]):
            failed.append("writes")
        # The admin behind the token is still there: the run did not lock itself out.
        server.api("GET", "/api/users", headers={"Authorization": f"Bearer {ids['token']}"})
        if run_pass(server, ids, "session", args.examples, args.seed, session=True,
                    filters=["--include-path-regex", "^/api/(tokens|me/totp|users/)",
                             "--exclude-path", "/api/logout", "--exclude-path", "/api/logout-everywhere"]):
            failed.append("session")
        if server.proc.poll() is not None:
            failed.append(f"server exited with {server.proc.returncode}")
        else:
            table = reached(server)
            for op in MUST_SUCCEED:
                if not any(st.startswith("2") for st in table.get(op, {})):
                    failed.append(f"{op} never succeeded")
    finally:
        server.stop()
        if failed or args.keep:
            print(f"data folder kept: {server.data}\n--- server log (end) ---\n{server.tail()}")
        else:
            shutil.rmtree(server.data, ignore_errors=True)
    if failed:
        print(f"fuzz: failed ({', '.join(failed)})")
        sys.exit(1)
    print("fuzz: 3 passed, 0 failed")


if __name__ == "__main__":
    main()
