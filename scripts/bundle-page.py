#!/usr/bin/env python3
"""Bundles the page's ES modules (Web/js, from app.js, with the generated protocol.js) into one
module script, so a first visit fetches one file instead of 34 over the browser's six HTTP/1.1
connections (issue 15.2, the cold first visit; BENCHMARKS.md "The page at 1,000,000 items").

Each module becomes a function scope run once, in dependency order, that answers its exports;
`import { a, b as c } from './x.js'` becomes `const { a, b: c } = <x's exports>`. The page's
modules use only that form, `export { a } from './x.js'` and exported declarations (function,
async function, class, const): anything else, an import that names something its module does not
export, or a cycle, fails the build with the module and line. Only code is read: quotes, braces and
`import`/`export` lines in comments, strings, template literals and regex literals are not (code_mask).

    scripts/bundle-page.py [Web/js] [.build-wasm/protocol.js] [.build-wasm/page.js]
"""
import os
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


WORD = re.compile(r"[\w$]+")
# After these words a `/` starts a regex literal (as after an operator or an opening bracket);
# after another word, a number, a literal or `)` `]` it divides.
BEFORE_REGEX = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
                "do", "else", "yield", "await"}


def code_mask(module, source):
    """Where `source` is code: 1 at each character of code, 0 inside comments and string, template
    and regex literals (their delimiters too), so the quotes, braces and `import`/`export` lines in
    them are not read as code. A template's `${…}` substitutions are code again, nested to any
    depth. A `/` starts a regex literal where an operand is expected; one that does not close on
    its line is a division after all."""
    n = len(source)
    code = bytearray(n)
    braces = []            # per open `{` or `${`: True where its `}` returns into a template
    k, regex_ok = 0, True  # regex_ok: a `/` here would start a regex literal

    def template(k, start):
        """Scans a template's text from k (past its backtick or a substitution's `}`) to its
        closing backtick (answers past it) or a `${` (answers past it, the substitution open)."""
        while k < n:
            ch = source[k]
            if ch == "\\":
                k += 2
            elif ch == "`":
                return k + 1
            elif ch == "$" and source.startswith("{", k + 1):
                braces.append(True)
                return k + 2
            else:
                k += 1
        fail(module, source, start, "a template literal that does not close")

    while k < n:
        ch = source[k]
        start = k
        if ch in " \t\r\n":
            code[k] = 1
            k += 1
            continue
        if source.startswith("//", k):
            end = source.find("\n", k)
            k = n if end < 0 else end
            continue
        if source.startswith("/*", k):
            end = source.find("*/", k + 2)
            if end < 0:
                fail(module, source, k, "a comment that does not close")
            k = end + 2
            continue
        if ch in "'\"":
            k += 1
            while k < n and source[k] != ch and source[k] != "\n":
                k += 2 if source[k] == "\\" else 1
            if k >= n or source[k] != ch:
                fail(module, source, start, "a string that does not close on its line")
            k += 1
            regex_ok = False
            continue
        if ch == "`":
            k = template(k + 1, start)
            regex_ok = False
            continue
        if ch == "}" and braces and braces[-1]:
            braces.pop()
            k = template(k + 1, start)
            regex_ok = False
            continue
        if ch == "/" and regex_ok:
            j, in_class = k + 1, False
            while j < n and source[j] != "\n":
                c = source[j]
                if c == "\\":
                    j += 1
                elif c == "[":
                    in_class = True
                elif c == "]":
                    in_class = False
                elif c == "/" and not in_class:
                    break
                j += 1
            if j < n and source[j] == "/":
                m = WORD.match(source, j + 1)  # its flags
                k = m.end() if m else j + 1
                regex_ok = False
                continue
        m = WORD.match(source, k)
        if m:
            code[k:m.end()] = b"\x01" * (m.end() - k)
            regex_ok = m.group(0) in BEFORE_REGEX
            k = m.end()
            continue
        code[k] = 1
        if ch == "{":
            braces.append(False)
        elif ch == "}" and braces:
            braces.pop()
        regex_ok = ch not in ")]"
        k += 1
    return code


def declared(source, code, start):
    """The names a `const` declaration starting at `start` declares: the identifiers before
    each `=` at nesting depth 0, up to the `;` (or line end) that ends it; only code counts
    (`code`: code_mask)."""
    found, depth, k, expect = [], 0, start, True
    while k < len(source):
        ch = source[k]
        if not code[k]:
            pass
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
    code = code_mask(name, source)
    imports, exports, reexports = [], {}, []
    edits = []  # (start, end, replacement) in source: the imports and re-exports go, exported declarations lose `export`
    for m in IMPORT.finditer(source):
        if not code[m.start()]:
            continue
        try:
            imports.append((m.group(2), names(m.group(1)), m.start()))
        except ValueError as e:
            fail(name, source, m.start(), f"cannot read the import of {e}")
        edits.append((m.start(), m.end(), ""))
    for m in REEXPORT.finditer(source):
        if not code[m.start()]:
            continue
        reexports.append((m.group(2), names(m.group(1)), m.start()))
        edits.append((m.start(), m.end(), ""))
    for m in DECLARATION.finditer(source):
        if not code[m.start()]:
            continue
        kind = m.group(1)
        if kind == "const":
            found = declared(source, code, m.end())
            if not found:
                fail(name, source, m.start(), "cannot read the names this export declares")
            for n in found:
                exports[n] = n
        else:
            ident = IDENT.match(source, m.end())
            if not ident:
                fail(name, source, m.start(), "cannot read the name this export declares")
            exports[ident.group(0)] = ident.group(0)
        edits.append((m.start(), m.end(), m.group(1) + " "))
    handled = {start for start, _, _ in edits}
    for m in re.finditer(r"^[ \t]*(import|export)\b", source, re.M):
        if code[m.start(1)] and m.start(1) not in handled:
            fail(name, source, m.start(1), f"a form of {m.group(1)} the bundler does not handle")
    for m in re.finditer(r"\bimport\s*\(|\bimport\.meta\b", source):
        if code[m.start()]:
            fail(name, source, m.start(), "dynamic import or import.meta (not handled)")
    body, at = [], 0
    for start, end, replacement in sorted(edits):
        body += [source[at:start], replacement]
        at = end
    body = "".join(body + [source[at:]])
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
# A temporary file of this process's own, renamed over the bundle: two builders at once (the browser tests'
# two workers each build it as they start) never write into one file, and a reader sees one whole bundle.
tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
tmp.write_text("\n".join(parts))
tmp.replace(out)
print(f"built {out.relative_to(root) if out.is_relative_to(root) else out} ({len(order)} modules, {out.stat().st_size} bytes)")
