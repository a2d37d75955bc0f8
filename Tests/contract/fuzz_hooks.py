"""schemathesis hooks for Tests/contract/fuzz.py (loaded through SCHEMATHESIS_HOOKS).

`POST /api/galleries/import` takes a zip archive as its body (application/zip): sent as the
bytes schemathesis generates for a binary body (the server must refuse what is not an archive
with 422, never fail).

Python 3.11 keeps the AST constructor's recursion depth in one per-interpreter counter, so two
threads in `ast.parse` at once can fail with "SystemError: AST constructor recursion depth
mismatch" (CPython gh-106905). Hypothesis parses lambdas' sources to describe strategies, and
schemathesis runs two workers as threads: CI failed on exactly that once. `ast.parse` is made
one thread at a time here, in the schemathesis process."""
import ast
import json
import threading
import zlib

_parse, _parse_lock = ast.parse, threading.Lock()


def _serial_parse(*args, **kwargs):
    with _parse_lock:
        return _parse(*args, **kwargs)


ast.parse = _serial_parse

import schemathesis

schemathesis.serializer.alias("application/zip", "application/octet-stream")

from hypothesis import strategies as st


@schemathesis.hook
def map_body(context, body):
    """Batches as a client sends them: a generated baseVersion is nearly always stale (409) and a
    generated list of operations nearly always holds one impossible operation (all or none), so
    half of the batches (chosen by their content, so a seed repeats a run) go without baseVersion
    and half hold only their first operation: the operations themselves are reached."""
    operation = getattr(context, "operation", None)
    if isinstance(body, dict) and operation is not None and operation.path.endswith("/batch"):
        choice = zlib.crc32(json.dumps(body, sort_keys=True, default=str).encode())
        if choice & 1 and "baseVersion" in body:
            body = {k: v for k, v in body.items() if k != "baseVersion"}
        if choice & 2 and isinstance(body.get("operations"), list) and len(body["operations"]) > 1:
            body = {**body, "operations": body["operations"][:1]}
    return body


@schemathesis.hook
def flatmap_query(context, query):
    """An upload's destination is one place (section with an optional index, before, or after):
    half of the uploads name only one of them, or none (the end of the last section)."""
    operation = getattr(context, "operation", None)
    if operation is None or not operation.path.endswith("/uploads") or not isinstance(query, dict):
        return st.just(query)
    choices = [query, {}]
    for keys in (("section", "index"), ("section",), ("before",), ("after",)):
        if all(k in query for k in keys):
            choices.append({k: query[k] for k in keys})
    return st.sampled_from(choices)
