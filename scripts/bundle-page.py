#!/usr/bin/env python3
"""Bundles the page's ES modules (Web/js, from app.js, with the generated protocol.js) into one
module script, so a first visit fetches one file instead of 34 over the browser's six HTTP/1.1
connections (issue 15.2, the cold first visit; BENCHMARKS.md "The page at 1,000,000 items").

Each module becomes a function scope run once, in dependency order, that answers its exports;
`import { a, b as c } from './x.js'` becomes `const { a, b: c } = <x's exports>`. The page's
modules use only that form, `export { a } from './x.js'` and exported declarations (function,
async function, class, const): anything else, an import that names something its module does not
export, or a cycle, fails the build with the module and line.

    scripts/bundle-page.py [Web/js] [.build-wasm/protocol.js] [.build-wasm/page.js]
"""
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
web = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "Web" / "js"
protocol = Path(sys.argv[2]) if len(sys.argv) > 2 else root / ".build-wasm" / "protocol.js"
out = Path(sys.argv[3]) if len(sys.argv) > 3 else root / ".build-wasm" / "page.js"

IMPORT = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*'\./([\w-]+\.js)';?[ \t]*$", re.M)
REEXPORT = re.compile(r"^export\s*\{([^}]*)\}\s*from\s*'\./([\w-]+\.js)';?[ \t]*$", re.M)
DECLARATION = re.compile(r"^export\s+((?:async\s+)?function\*?|class|const)\s+", re.M)
IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def fail(module, source, at, message):
    line = source.count("\n", 0, at) + 1
    sys.exit(f"bundle-page: {module}:{line}: {message}")


def names(spec):
    """`a, b as c` → [(a, a), (b, c)] (exported name, local name)."""
    pairs = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        words = part.split()
        if len(words) == 1:
            pairs.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == "as":
            pairs.append((words[0], words[2]))
        else:
            raise ValueError(part)
    return pairs


def declared(source, start):
    """The names a `const` declaration starting at `start` declares: the identifiers before
    each `=` at nesting depth 0, up to the `;` (or line end) that ends it."""
    found, depth, k, expect = [], 0, start, True
    quote = None
    while k < len(source):
        ch = source[k]
        if quote:
            if ch == "\\":
                k += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and (ch == ";" or ch == "\n"):
            break
        elif depth == 0 and ch == ",":
            expect = True
        elif depth == 0 and expect and not ch.isspace():
            m = IDENT.match(source, k)
            if not m:
                return None
            found.append(m.group(0))
            k = m.end()
            expect = False
            continue
        k += 1
    return found


modules = {}


def load(name):
    path = protocol if name == "protocol.js" else web / name
    if not path.exists():
        sys.exit(f"bundle-page: {path} not found" + (" (run scripts/build-wasm.sh)" if name == "protocol.js" else ""))
    source = path.read_text()
    imports, exports, reexports = [], {}, []
    for m in IMPORT.finditer(source):
        try:
            imports.append((m.group(2), names(m.group(1)), m.start()))
        except ValueError as e:
            fail(name, source, m.start(), f"cannot read the import of {e}")
    for m in REEXPORT.finditer(source):
        reexports.append((m.group(2), names(m.group(1)), m.start()))
    for m in DECLARATION.finditer(source):
        kind = m.group(1)
        if kind == "const":
            found = declared(source, m.end())
            if not found:
                fail(name, source, m.start(), "cannot read the names this export declares")
            for n in found:
                exports[n] = n
        else:
            ident = IDENT.match(source, m.end())
            if not ident:
                fail(name, source, m.start(), "cannot read the name this export declares")
            exports[ident.group(0)] = ident.group(0)
    body = REEXPORT.sub("", IMPORT.sub("", source))
    body = DECLARATION.sub(lambda m: m.group(1) + " ", body)
    for m in re.finditer(r"^\s*(import|export)\b", body, re.M):
        fail(name, body, m.start(), f"a form of {m.group(1)} the bundler does not handle")
    if re.search(r"\bimport\s*\(|\bimport\.meta\b", body):
        sys.exit(f"bundle-page: {name}: dynamic import or import.meta (not handled)")
    modules[name] = {"source": source, "body": body, "imports": imports, "exports": exports, "reexports": reexports}


order, state = [], {}


def visit(name, chain):
    if state.get(name) == "done":
        return
    if state.get(name) == "open":
        sys.exit(f"bundle-page: an import cycle: {' → '.join(chain + [name])}")
    state[name] = "open"
    load(name)
    m = modules[name]
    for dep, _, _ in m["imports"] + m["reexports"]:
        visit(dep, chain + [name])
    state[name] = "done"
    order.append(name)


def scope(name):
    return "__" + re.sub(r"\W", "_", name[:-3])


visit("app.js", [])
for name in order:
    m = modules[name]
    for dep, pairs, at in m["imports"] + m["reexports"]:
        known = set(modules[dep]["exports"]) | {local for _, p, _ in modules[dep]["reexports"] for _, local in p}
        for exported, _ in pairs:
            if exported not in known:
                fail(name, m["source"], at, f"imports {exported} from {dep}, which does not export it")
    for dep, pairs, _ in m["reexports"]:
        for exported, local in pairs:
            m["exports"][local] = f"{scope(dep)}.{exported}"

parts = ["// The page's modules in one file: built by scripts/bundle-page.py from Web/js and the generated",
         "// protocol.js (scripts/build-wasm.sh runs it). Edit Web/js, not this.", ""]
for name in order:
    m = modules[name]
    parts.append(f"// ── {name}")
    parts.append(f"const {scope(name)} = (() => {{")
    for dep, pairs, _ in m["imports"]:
        fields = ", ".join(e if e == l else f"{e}: {l}" for e, l in pairs)
        parts.append(f"const {{ {fields} }} = {scope(dep)};")
    parts.append(m["body"].rstrip("\n"))
    fields = ", ".join(k if k == v else f"{k}: {v}" for k, v in m["exports"].items())
    parts.append(f"return {{ {fields} }};")
    parts.append("})();")
    parts.append("")
tmp = out.with_suffix(".tmp")
tmp.write_text("\n".join(parts))
tmp.replace(out)
print(f"built {out.relative_to(root) if out.is_relative_to(root) else out} ({len(order)} modules, {out.stat().st_size} bytes)")
