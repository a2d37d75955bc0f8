// The page speaks only codes the engine defines (issue 11). The codes are declared once, in
// Sources/EngineBridge/BridgeProtocol.swift; scripts/build-wasm.sh generates the page's
// protocol module from it (.build-wasm/protocol.js). This test checks that
//  - the generated module has every enum of BridgeProtocol.swift, name for name and code for code
//    (read here from the Swift source independently of the generator),
//  - every `Table.name` that the page, the wasm tests and the scripts use exists in the table
//    they imported, and no `?? 60`-style fallback papers over a missing code,
//  - no bare event-type or flag numbers are left where a code belongs.
//
//   scripts/build-wasm.sh && node Tests/web/protocol.test.mjs
import './built-protocol.mjs';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';

const protocol = await import('../../Web/js/protocol.js');
const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

// 1. BridgeProtocol.swift's enums, read from the source: { Op: { version: 0, ... }, ... }.
const swift = read('Sources/EngineBridge/BridgeProtocol.swift');
const declared = {};
for (const m of swift.matchAll(/public enum Bridge(\w+): Int(?:32)?\b[^{]*\{([\s\S]*?)\n\}/g)) {
  const cases = {};
  let next = 0;
  for (const line of m[2].split('\n')) {
    const c = line.match(/^\s*case\s+(.+)$/);
    if (!c) continue;
    for (const part of c[1].split(',')) {
      const [name, value] = part.split('=').map((x) => x.trim());
      next = value === undefined ? next : Number(value);
      cases[name] = next++;
    }
  }
  declared[m[1]] = cases;
}
assert.ok(Object.keys(declared).length >= 20, `only ${Object.keys(declared).length} enums read from BridgeProtocol.swift`);
for (const [name, cases] of Object.entries(declared)) {
  assert.ok(protocol[name], `protocol.js lacks ${name} (add Bridge${name} to scripts/protocol-module.swift)`);
  assert.deepEqual({ ...protocol[name] }, cases, `protocol.js ${name} differs from Bridge${name}`);
  assert.ok(Object.isFrozen(protocol[name]), `${name} is not frozen`);
}
assert.equal(protocol.protocolVersion, Number(swift.match(/engineBridgeVersion: Int = (\d+)/)[1]));

// 2. Every use of a protocol table names a code it has.
const files = [
  ...readdirSync(new URL('Web/js/', root)).filter((f) => f.endsWith('.js')).map((f) => `Web/js/${f}`),
  ...readdirSync(new URL('Tests/wasm/', root)).filter((f) => f.endsWith('.mjs')).map((f) => `Tests/wasm/${f}`),
  ...readdirSync(new URL('scripts/', root)).filter((f) => f.endsWith('.mjs')).map((f) => `scripts/${f}`),
];
const unknown = [];
let uses = 0, importers = 0;
for (const f of files) {
  const source = read(f);
  // The names this file took from protocol.js (static import or destructured dynamic import).
  const local = {};
  for (const m of source.matchAll(/(?:import\s*\{([^}]*)\}\s*from|const\s*\{([^}]*)\}\s*=\s*await\s+import\()\s*'[^']*protocol\.js'/g)) {
    importers++;
    for (const part of (m[1] ?? m[2]).split(',').map((x) => x.trim()).filter(Boolean)) {
      const [table, alias] = part.split(/\s*(?:as|:)\s*/);
      local[alias ?? table] = table;
    }
  }
  if (/await import\([^)]*protocol\.js'\)\s*;/.test(source) && /const protocol = await import/.test(source)) local.protocol = '*';
  for (const [name, table] of Object.entries(local)) {
    if (table === '*' || !(table in declared)) continue;
    for (const m of source.matchAll(new RegExp(`(?<![\\w.])${name}\\.(\\w+)`, 'g'))) {
      uses++;
      if (!(m[1] in declared[table])) unknown.push(`${f}: ${name}.${m[1]} (${table} has no ${m[1]})`);
    }
    for (const m of source.matchAll(new RegExp(`(?<![\\w.])${name}\\.\\w+\\s*\\?\\?`, 'g'))) unknown.push(`${f}: a fallback for a code: ${m[0]}`);
  }
  // Bare numbers where a code belongs.
  for (const m of source.matchAll(/\.event\(\s*\d+|flags\s*&\s*\d+|controllerEvent,\s*\[\s*h,\s*\d+/g)) unknown.push(`${f}: a bare code: ${m[0]}`);
}
assert.ok(importers >= 10, `only ${importers} files import protocol.js: the scan is broken`);
assert.ok(uses > 150, `only ${uses} uses of protocol codes found: the scan is broken`);
assert.deepEqual(unknown, [], 'codes the definition lacks');
console.log(`protocol: ${Object.keys(declared).length} enums agree with BridgeProtocol.swift; ${uses} uses in ${importers} importing files checked`);
