// Issue 13: the page asks in its own dialogs (ui.js `ask`), never with the browser's prompt(),
// alert() or confirm() — they block the page, cannot be styled or validated, and look like an
// error on a phone. Checks every module of Web/js for a call to any of them.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const js = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'Web', 'js');
const found = [];
for (const name of readdirSync(js).filter((n) => n.endsWith('.js'))) {
  readFileSync(join(js, name), 'utf8').split('\n').forEach((line, k) => {
    const code = line.replace(/\/\/.*$/, '').replace(/(['"`])(?:\\.|(?!\1).)*\1/g, '""');
    if (/(^|[^.\w])(window\.)?(prompt|alert|confirm)\s*\(/.test(code)) found.push(`${name}:${k + 1}: ${line.trim()}`);
  });
}
assert.deepEqual(found, [], `native dialogs in the page:\n${found.join('\n')}`);
console.log('dialogs ok: no prompt(), alert() or confirm() in Web/js');
