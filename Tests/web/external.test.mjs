// The page's reading of dropped data (Web/js/external.js) under node, with DataTransfer-shaped
// objects: a dropped folder is walked (nested folders, batched directory reads), only image
// files are kept, and URL lists skip comments. Chromium's own drag events cannot carry a
// folder in a test (a synthetic DataTransfer has no FileSystemEntry), so this covers the walk.
//
//   node Tests/web/external.test.mjs
import assert from 'node:assert/strict';
import { readDrop } from '../../Web/js/external.js';

const file = (name, type) => ({ name, type });
function fileEntry(f) { return { isFile: true, isDirectory: false, file: (ok) => setTimeout(() => ok(f), 1) }; }
function folder(children, batch = 2) {
  return {
    isFile: false, isDirectory: true,
    createReader() {
      let at = 0; // readEntries answers in batches, then [] (as Chromium does, 100 at a time)
      return { readEntries: (ok) => setTimeout(() => { const part = children.slice(at, at + batch); at += batch; ok(part); }, 1) };
    },
  };
}
function transfer({ entries = [], files = [], data = {} }) {
  return {
    items: entries.map((e) => ({ kind: 'file', webkitGetAsEntry: () => e })),
    files,
    getData: (type) => data[type] ?? '',
  };
}

// A folder with images, a text file and a nested folder; plus a loose image beside it.
const a = file('a.jpg', 'image/jpeg'), b = file('b.png', 'image/png'), notes = file('notes.txt', 'text/plain');
const c = file('c.webp', 'image/webp'), d = file('d.gif', 'image/gif'), loose = file('loose.jpg', 'image/jpeg');
const dropped = transfer({ entries: [folder([fileEntry(a), fileEntry(notes), folder([fileEntry(c), fileEntry(d)], 1), fileEntry(b)]), fileEntry(loose)] });
const got = await readDrop(dropped);
assert.deepEqual(got.files.map((f) => f.name), ['a.jpg', 'c.webp', 'd.gif', 'b.png', 'loose.jpg']);
assert.deepEqual(got.urls, []);

// An empty folder gives nothing; plain files without entries are read from dt.files.
assert.deepEqual((await readDrop(transfer({ entries: [folder([])] }))).files, []);
assert.deepEqual((await readDrop(transfer({ files: [a, notes] }))).files.map((f) => f.name), ['a.jpg']);

// URL lists: one per line, comments skipped; a bare http(s) text is a URL too.
const urls = await readDrop(transfer({ data: { 'text/uri-list': '# from a page\r\nhttps://e.com/1.jpg\r\nhttps://e.com/2.jpg\r\n' } }));
assert.deepEqual(urls.urls, ['https://e.com/1.jpg', 'https://e.com/2.jpg']);
assert.deepEqual((await readDrop(transfer({ data: { 'text/plain': ' https://e.com/3.jpg ' } }))).urls, ['https://e.com/3.jpg']);
assert.deepEqual((await readDrop(transfer({ data: { 'text/plain': 'just words' } }))).urls, []);
console.log('external.js: folder walk, file filter and URL lists ok');
