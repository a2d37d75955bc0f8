// The first visit's columns read as they arrive (Web/js/early.js, readColumns): the body is handed
// over once every column before the titles is in, its titles follow once the page resumes the
// reading, a small body comes whole, and a body longer than its header says, one that ends before
// its titles or one not in the binary form is refused with a clear error — the body's chunks
// pushed one by one through a real Response stream.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import './built-protocol.mjs';
const { decodeColumns } = await import('../../Web/js/api.js');

/// A GCB2 body (docs/API.md, "Binary form") of `n` items with titles `IMG_<id>`, narrow columns.
function body(n) {
  const ids = Array.from({ length: n }, (_, k) => 1000 + k);
  const titles = ids.map((id) => new TextEncoder().encode(`IMG_${id}`));
  const titleBytes = titles.reduce((a, t) => a + t.length, 0);
  const head = new TextEncoder().encode(JSON.stringify({
    format: 'columns-binary-2', gallery: { id: 5, name: 'g', version: 2, itemCount: n, createdAt: 0 }, version: 2,
    sections: [{ id: 1, title: 's', count: n }], details: {}, count: n, titleBytes, idBytes: 4, versionBytes: 2, sizeBytes: 2,
  }));
  let at = 8 + head.length;
  const place = (size) => { at = Math.ceil(at / size) * size; const start = at; at += size * n; return start; };
  const [aspectAt, idAt, endAt, versionAt, widthAt, heightAt, stateAt] = [8, 4, 4, 2, 2, 2, 1].map(place);
  const gridEnd = at, out = new Uint8Array(at + titleBytes), view = new DataView(out.buffer);
  out.set(new TextEncoder().encode('GCB2'));
  view.setUint32(4, head.length, true);
  out.set(head, 8);
  let end = 0;
  ids.forEach((id, k) => {
    view.setFloat64(aspectAt + 8 * k, 1.5, true);
    view.setUint32(idAt + 4 * k, id, true);
    view.setUint32(endAt + 4 * k, (end += titles[k].length), true);
    view.setUint16(versionAt + 2 * k, 1, true);
    view.setUint16(widthAt + 2 * k, 300, true);
    view.setUint16(heightAt + 2 * k, 200, true);
    out[stateAt + k] = 114;
  });
  let t = gridEnd;
  for (const title of titles) { out.set(title, t); t += title.length; }
  return { bytes: out, gridEnd };
}

/// early.js run as the page runs it, at /#/g/5, its columns answered by a stream whose chunks the
/// test pushes (`push`, `close`); every other request fails (early.js lets app.js retry them).
function visit() {
  let controller;
  const stream = new ReadableStream({ start(c) { controller = c; } });
  const window = { };
  const fetch = (url) => (url.includes('/columns') ? Promise.resolve(new Response(stream)) : Promise.reject(new Error('offline')));
  const location = { pathname: '/', hash: '#/g/5' };
  new Function('window', 'fetch', 'location', readFileSync(new URL('../../Web/js/early.js', import.meta.url), 'utf8'))(window, fetch, location);
  return { early: window.early, push: (bytes) => controller.enqueue(bytes), close: () => controller.close() };
}

/// What `promise` settled to once the stream's pending reads are done (a few macrotasks), or
/// the symbol PENDING.
const PENDING = Symbol('pending');
const settled = async (promise) => {
  let out = PENDING;
  promise.then((value) => { out = { value }; }, (error) => { out = { error }; });
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  return out;
};

// A big body in pieces: nothing handed over before the grid's columns are in; then the body at
// its full size with its titles read as '' until the reading is resumed and the rest arrives.
{
  const { bytes, gridEnd } = body(5000);
  const { early, push, close } = visit();
  assert.equal(early.columns.id, 5);
  push(bytes.slice(0, 10)); // not even the whole header
  push(bytes.slice(10, gridEnd - 1));
  assert.equal(await settled(early.columns.response), PENDING, 'handed over before the grid columns were in');
  push(bytes.slice(gridEnd - 1, gridEnd + 7)); // the last byte of the states and a little of the titles
  const handed = (await settled(early.columns.response)).value;
  assert.ok(handed && handed.whole, 'handed over with the titles to follow');
  assert.equal(handed.body.byteLength, bytes.length, 'the body at its final size');
  const c = decodeColumns(handed.body, handed.whole);
  assert.equal(c.count, 5000);
  assert.equal(c.id[4999], 5999);
  assert.equal(c.height[0], 200);
  assert.equal(c.titleAt(0), '', 'no title before they are in');
  push(bytes.slice(gridEnd + 7, gridEnd + 500));
  push(bytes.slice(gridEnd + 500));
  close();
  assert.equal(await settled(c.whole), PENDING, 'the reading waits for resume()');
  handed.resume();
  assert.equal((await settled(c.whole)).value, c);
  assert.equal(c.titleAt(0), 'IMG_1000');
  assert.equal(c.titleAt(4999), 'IMG_5999');
}

// A small body in one chunk: handed over whole, nothing to wait for.
{
  const { bytes } = body(20);
  const { early, push, close } = visit();
  push(bytes);
  close();
  const handed = (await settled(early.columns.response)).value;
  assert.equal(handed.whole, null);
  assert.equal(decodeColumns(handed.body, handed.whole).titleAt(19), 'IMG_1019');
}

// A body longer than its header says, or ending before its titles: the titles' promise says so.
for (const [cut, message] of [[+3, /longer than their header says/], [-3, /ended before their titles/]]) {
  const { bytes, gridEnd } = body(3000);
  const { early, push, close } = visit();
  push(bytes.slice(0, gridEnd + 10));
  const handed = (await settled(early.columns.response)).value;
  handed.resume();
  const rest = cut > 0 ? new Uint8Array(bytes.length + cut - gridEnd - 10).fill(65) : bytes.slice(gridEnd + 10, bytes.length + cut);
  push(rest);
  close();
  const c = decodeColumns(handed.body, handed.whole);
  const out = await settled(c.whole);
  assert.match(String(out.error?.message), message);
  assert.equal(c.titleAt(0), '', 'titles never read from a broken body');
}

// A body cut short before its grid columns, and one not in the binary form: handed over as they
// came, and decodeColumns names what is wrong.
{
  const { bytes, gridEnd } = body(3000);
  const short = visit();
  short.push(bytes.slice(0, gridEnd - 100));
  short.close();
  const handed = (await settled(short.early.columns.response)).value;
  assert.equal(handed.body.byteLength, gridEnd - 100);
  assert.throws(() => decodeColumns(handed.body, handed.whole), /wrong length|not a binary columns body|offset|length/i);
  const json = visit();
  json.push(new TextEncoder().encode('{"format":"columns-2"}'));
  json.close();
  const other = (await settled(json.early.columns.response)).value;
  assert.throws(() => decodeColumns(other.body, other.whole), /not a binary columns body/);
}

console.log('early columns: handed over at the grid columns, titles after resume, small bodies whole, long, short and foreign bodies refused');
