// Parity test: the same random calls run through engine.wasm (under node) and through the
// native engine (`engine-cli replay`); every answer — every frame, query, hit-test, drop
// destination and staged diff — must be identical, bit for bit.
//
//   node Tests/wasm/parity.mjs [path/to/engine-cli] [path/to/engine.wasm] [path/to/engine-test.wasm]
//
// engine.wasm is the page's engine; engine-test.wasm (scripts/build-wasm.sh --test-support) is
// the same engine with its test support, which plays the seeds' scenario (Op.seedReplay) —
// engine.wasm must refuse that operation. The native side is a debug engine-cli (test support on).
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../web/built-protocol.mjs';
import { rng, layoutConfig, aspects, encodeSnapshot } from './random.mjs';
const { Engine } = await import('../../Web/js/engine.js');
const { readEffects, readRender, readStages } = await import('../../Web/js/effects.js');
const protocol = await import('../../Web/js/protocol.js');
const { Op, EventType, Key, Modifier, DropData, DropOperation, TitleKind, HistoryStep, LayoutKind, PointerKind, SectionEdit } = protocol;

const cli = process.argv[2] ?? '.build/debug/engine-cli';
const wasmPath = process.argv[3] ?? '.build-wasm/engine.wasm';
const engine = await Engine.load(readFileSync(wasmPath));
const testEngine = await Engine.load(readFileSync(process.argv[4] ?? '.build-wasm/engine-test.wasm'));

const calls = [];   // [op, input]
const answers = []; // wasm answers, same order
function call(op, input, on = engine) {
  const answer = on.call(op, input);
  calls.push([op, Float64Array.from(input)]);
  answers.push(answer);
  return answer;
}

call(Op.version, []);

// Layouts: every kind, random configurations, queries, edits and pinches.
let handle = 0;
for (let c = 0; c < 80; c++) {
  const r = rng(1000 + c);
  const kind = c % 4;
  const h = call(Op.layoutCreate, layoutConfig(r, kind))[1];
  if (h !== handle++) throw new Error(`unexpected handle ${h}`);
  const sections = r.int(1, 6);
  const counts = Array.from({ length: sections }, () => (r.next() < 0.15 ? 0 : r.int(1, 250)));
  const total = counts.reduce((a, b) => a + b, 0);
  const [, width, height] = call(Op.layoutPrepare, [h, sections, ...counts, ...aspects(r, total)]);
  call(Op.layoutFrames, [h]);
  const px = () => r.range(-20, width + 20), py = () => r.range(-20, height + 20);
  for (let q = 0; q < 20; q++) call(Op.layoutAttributes, [h, px(), py(), r.range(0, width), r.range(0, 900)]);
  for (let q = 0; q < 40; q++) { call(Op.layoutHitTest, [h, px(), py()]); call(Op.layoutDropDestination, [h, px(), py()]); }
  const live = [...counts];
  for (let e = 0; e < 12; e++) {
    const nonEmpty = live.map((n, s) => (n > 0 ? s : -1)).filter((s) => s >= 0);
    const op = r.int(0, 2);
    if (op === 0 && nonEmpty.length) {
      const fs = r.pick(nonEmpty), fi = r.int(0, live[fs] - 1), ts = r.int(0, sections - 1);
      const ti = r.int(0, live[ts] - (ts === fs ? 1 : 0));
      call(Op.layoutMoveItem, [h, fs, fi, ts, ti]);
      live[fs]--; live[ts]++;
    } else if (op === 1) {
      const s = r.int(0, sections - 1);
      call(Op.layoutInsertItem, [h, s, r.int(0, live[s]), aspects(r, 1)[0]]);
      live[s]++;
    } else if (nonEmpty.length) {
      const s = r.pick(nonEmpty);
      call(Op.layoutDeleteItem, [h, s, r.int(0, live[s] - 1)]);
      live[s]--;
    }
    call(Op.layoutFrames, [h]);
  }
  call(Op.layoutSetGapCells, [h, 1]);
  call(Op.layoutFrames, [h]);
  const next = layoutConfig(r, kind).slice(0, 3);
  call(Op.layoutReconfigure, [h, ...next, r.range(0, 400), r.range(0, 800), 0, r.range(0, height)]);
  call(Op.layoutFrames, [h]);
  for (let q = 0; q < 10; q++) call(Op.layoutAttributes, [h, px(), py(), r.range(0, width), r.range(0, 900)]);
  call(Op.layoutDestroy, [h]);
}

// Diffs: random snapshots and the four benchmark workloads plus section edits.
let nextID = 1;
function randomSnapshot(r) {
  const n = r.int(1, 6);
  return Array.from({ length: n }, (_, s) => ({
    id: 1000 + s,
    items: Array.from({ length: r.int(0, 120) }, () => ({ id: nextID++, version: r.int(0, 3) })),
  }));
}
const clone = (snap) => snap.map((s) => ({ id: s.id, items: s.items.map((i) => ({ ...i })) }));
const workloads = {
  shuffle(r, t) {
    const all = r.shuffle(t.flatMap((s) => s.items));
    let k = 0;
    for (const s of t) s.items = all.slice(k, (k += s.items.length));
  },
  moves(r, t) {
    for (let m = 0; m < 8; m++) {
      const from = r.pick(t.filter((s) => s.items.length));
      if (!from) return;
      const [item] = from.items.splice(r.int(0, from.items.length - 1), 1);
      const to = r.pick(t);
      to.items.splice(r.int(0, to.items.length), 0, item);
    }
  },
  deletesInserts(r, t) {
    for (const s of t) {
      s.items = s.items.filter(() => r.next() > 0.1);
      for (let k = 0; k < Math.ceil(s.items.length / 10); k++) s.items.splice(r.int(0, s.items.length), 0, { id: nextID++, version: 0 });
    }
  },
  updates(r, t) { for (const s of t) for (const i of s.items) if (r.next() < 0.05) i.version++; },
  sections(r, t) {
    if (t.length > 1 && r.next() < 0.5) t.splice(r.int(0, t.length - 1), 1);
    t.splice(r.int(0, t.length), 0, { id: 5000 + nextID++, items: [{ id: nextID++, version: 0 }] });
    if (t.length > 1) { const [s] = t.splice(r.int(0, t.length - 1), 1); t.splice(r.int(0, t.length), 0, s); }
  },
};
const names = Object.keys(workloads);
for (let c = 0; c < 100; c++) {
  const r = rng(5000 + c);
  const source = randomSnapshot(r);
  const target = clone(source);
  const applied = c < 50 ? [names[c % names.length]] : names.filter(() => r.next() < 0.5);
  for (const name of applied) workloads[name](r, target);
  const answer = call(Op.diff, [...encodeSnapshot(source), ...encodeSnapshot(target)]);
  if (answer[0] !== 0) throw new Error(`diff ${c} refused: ${answer.slice(0, 3)}`);
  // Applying the stages to the source through the engine gives exactly the target.
  const result = call(Op.snapshotApply, [...encodeSnapshot(source), ...answer.slice(1)]);
  const expected = [0, ...encodeSnapshot(target)];
  if (result.length !== expected.length || result.some((v, k) => v !== expected[k])) {
    throw new Error(`diff ${c}: applying the stages does not give the target`);
  }
}
// A stage that breaks the rules is refused: deleting an item twice.
const one = [1, 7, 2, 1, 2, 0, 0];
if (call(Op.snapshotApply, [...one, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0])[0] !== -7) throw new Error('invalid stage not refused');
// Refusals must match too: a duplicate id, a truncated buffer, an unknown operation.
const dup = [1, 7, 2, 1, 1, 0, 0];
if (call(Op.diff, [...dup, ...dup])[0] !== -6) throw new Error('duplicate ids not refused');
if (call(Op.diff, [3, 1, 999999])[0] !== -2) throw new Error('truncated snapshot not refused');
if (call(99, [1, 2, 3])[0] !== -1) throw new Error('unknown operation not refused');
if (call(Op.layoutFrames, [12345])[0] !== -3) throw new Error('unknown handle not refused');

// Replayed drag sessions through the interaction controller: mouse and touch drags in
// insert and swap mode, auto-scroll ticks, trash drops, external drops with placeholders,
// keyboard drags, undo and redo; every answer (effects, rendered cells) must match.
for (let c = 0; c < 24; c++) {
  const r = rng(9000 + c);
  const sections = Array.from({ length: r.int(1, 4) }, (_, s) => ({
    id: 70 + s, items: Array.from({ length: r.int(0, 60) }, () => ({ id: nextID++, version: 0 })),
  }));
  const total = sections.reduce((n, s) => n + s.items.length, 0);
  const config = layoutConfig(r, c % 4);
  const width = config[3], viewH = r.range(300, 900);
  const created = call(Op.controllerCreate, [...encodeSnapshot(sections), ...aspects(r, total), ...config, width, viewH, c % 2, r.int(0, 2), r.int(0, 4)]);
  if (created[0] !== 0) throw new Error(`controller ${c} not created: ${created[0]}`);
  const h = created[1];
  call(Op.controllerOutsideTargets, [h, 1, 1, width - 80, viewH - 80, 64, 64, DropOperation.move, 0, 1]);
  const bytes = [...new TextEncoder().encode(`Item ${c} 🥸`)];
  call(Op.controllerTitles, [h, 1, TitleKind.item, sections.find((s) => s.items.length)?.items[0].id ?? 1, bytes.length, ...bytes]);
  let t = 0;
  for (let g = 0; g < 8; g++) {
    const kind = r.pick(Object.values(PointerKind));
    const pointer = [r.range(0, width), r.range(0, viewH)];
    call(Op.controllerEvent, [h, EventType.pointerDown, g, ...pointer, t, kind, 0]);
    if (kind === PointerKind.touch) { t += 0.6; call(Op.controllerTick, [h, t]); }
    for (let m = 0; m < 25; m++) {
      t += 1 / 60;
      pointer[0] = Math.max(-30, Math.min(width + 30, pointer[0] + r.range(-40, 40)));
      pointer[1] = Math.max(-60, Math.min(viewH + 60, pointer[1] + r.range(-40, 40)));
      call(Op.controllerEvent, [h, EventType.pointerMove, g, ...pointer, t, kind, r.next() < 0.2 ? Modifier.option : 0]);
      if (m % 8 === 3) call(Op.controllerEvent, [h, EventType.wheel, 0, r.range(-80, 80), t]);   // a wheel turn mid-drag
      if (m === 10 && r.next() < 0.5) {   // a tap adds an item (F17): multi-item moves, copies and swap runs
        const from = sections.filter((s) => s.items.length);
        if (from.length) call(Op.controllerAddToDrag, [h, r.pick(r.pick(from).items).id]);
      }
      call(Op.controllerTick, [h, t]);
      if (m % 5 === 0) call(Op.controllerRender, [h, 0, r.range(0, 2000), width, viewH]);
    }
    // Option held at the release in some drags: copies, previewed as copies.
    if (r.next() < 0.85) call(Op.controllerEvent, [h, EventType.pointerUp, g, ...pointer, t, kind, r.next() < 0.3 ? Modifier.option : 0]);
    else call(Op.controllerEvent, [h, EventType.pointerCancel, g, t]);
    for (let k = 0; k < 30; k++) { t += 1 / 60; call(Op.controllerTick, [h, t]); }
    call(Op.controllerRender, [h, 0, 0, width, viewH]);
  }
  // Drag the first visible item into the trash (an outside target that deletes).
  const shown = readRender(call(Op.controllerRender, [h, 0, 0, width, viewH])).cells.find((cell) => cell.kind === 'item' && cell.y + cell.h / 2 < viewH);
  if (shown) {
    const from = [shown.x + shown.w / 2, shown.y + shown.h / 2];
    call(Op.controllerEvent, [h, EventType.pointerDown, 99, ...from, (t += 1), PointerKind.mouse, 0]);
    for (let m = 1; m <= 10; m++) {
      call(Op.controllerEvent, [h, EventType.pointerMove, 99, from[0] + (width - 48 - from[0]) * m / 10, from[1] + (viewH - 48 - from[1]) * m / 10, (t += 1 / 60), PointerKind.mouse, 0]);
    }
    call(Op.controllerEvent, [h, EventType.pointerUp, 99, width - 48, viewH - 48, t, PointerKind.mouse, 0]);
    for (let k = 0; k < 30; k++) { t += 1 / 60; call(Op.controllerTick, [h, t]); }
  }
  // An external drop of two URLs, then one load fails and the other commits.
  call(Op.controllerEvent, [h, EventType.externalEnter, width / 2, viewH / 2, t, 2, DropData.url | DropData.image, DropData.file | DropData.image]);
  call(Op.controllerEvent, [h, EventType.externalMove, width / 3, viewH / 3, 0, t + 0.1]);
  const drop = call(Op.controllerEvent, [h, EventType.externalDrop, width / 3, viewH / 3, t + 0.2]);
  const placeholders = readEffects(drop).filter((e) => e.type === 'loadDroppedData').map((e) => e.placeholder);
  if (placeholders.length === 2) {
    call(Op.controllerDeletePlaceholder, [h, placeholders[0]]);
    call(Op.controllerCommitInsertion, [h, placeholders[1], nextID++, 1.5, 1]);
  }
  // A paste (an image and a text) after the first item, then the image arrives.
  const first = sections.find((s) => s.items.length)?.items[0].id;
  if (first !== undefined) call(Op.controllerFocus, [h, first]);
  const pasted = readEffects(call(Op.controllerPaste, [h, 2, DropData.image, DropData.text])).filter((e) => e.type === 'loadDroppedData').map((e) => e.placeholder);
  for (const p of pasted) call(Op.controllerPlaceholderDestination, [h, p]);   // where the server creates it
  call(Op.controllerPlaceholderDestination, [h, 424242]);                        // no such placeholder
  if (pasted.length === 1) call(Op.controllerCommitInsertion, [h, pasted[0], nextID++, 0.8, 0]);
  call(Op.controllerEvent, [h, EventType.wheel, 0, r.range(-200, 200), t]);
  // Keyboard: pick up, move, drop.
  for (const key of [Key.space, Key.right, Key.down, Key.up, Key.left, Key.space, Key.tab, Key.enter, Key.escape]) call(Op.controllerEvent, [h, EventType.key, key, 0, (t += 0.1)]);
  for (let k = 0; k < 30; k++) { t += 1 / 60; call(Op.controllerTick, [h, t]); }
  // Issue 12: a section put in an order (reversed, plus an id it does not hold) as one move.
  const arranged = sections.find((s) => s.items.length > 1);
  if (arranged) call(Op.controllerArrange, [h, arranged.id, arranged.items.length + 1, ...arranged.items.map((i) => i.id).reverse(), 999999]);
  // Issue 13: select mode's move to a section and trash; sections added, dragged by the header
  // (its drop index), moved and deleted; paging one page either way.
  const chosen = sections.flatMap((s) => s.items.map((i) => i.id)).slice(0, r.int(1, 4));
  const last = sections[sections.length - 1];
  call(Op.controllerMoveItems, [h, last.id, chosen.length, ...chosen]);
  call(Op.controllerSectionEdit, [h, SectionEdit.add, -1, r.int(-1, sections.length)]);
  call(Op.controllerSectionDropIndex, [h, last.id, r.range(0, 2000)]);
  if (sections.length > 1) call(Op.controllerSectionEdit, [h, SectionEdit.move, sections[0].id, sections.length - 1]);
  if (chosen.length > 1) call(Op.controllerTrashItems, [h, 1, chosen[1]]);
  if (sections.length > 2) call(Op.controllerSectionEdit, [h, SectionEdit.delete, sections[1].id, 0]);
  call(Op.controllerPageStep, [h, r.range(0, 3000), 1]);
  call(Op.controllerPageStep, [h, r.range(0, 3000), -1]);
  // A section header dragged past an edge (issue 13): edge auto-scroll a few frames, then stop.
  { const y = r.int(0, 1) ? -r.range(0, 120) : 600 + r.range(0, 120);
    for (let f = 0; f < 6; f++) call(Op.controllerEdgeScroll, [h, 1, y, 50 + f / 60]);
    call(Op.controllerEdgeScroll, [h, 0, 0, 51]); }
  for (let u = 0; u < 4; u++) call(Op.controllerHistory, [h, HistoryStep.undo]);
  for (let u = 0; u < 2; u++) call(Op.controllerHistory, [h, HistoryStep.redo]);
  // Issue 13: the history exported and given back (as after a reload), then undone from there;
  // a broken export is refused.
  const saved = call(Op.controllerHistoryExport, [h]);
  if (saved[0] === 0) {
    call(Op.controllerHistoryImport, [h, ...saved.slice(1)]);
    call(Op.controllerHistoryImport, [h, ...saved.slice(1, -1)]);
    call(Op.controllerHistory, [h, HistoryStep.undo]);
  }
  call(Op.controllerScrollTarget, [h, 0, r.range(0, 3000), 0, r.range(-3000, 3000)]);
  call(Op.controllerPinch, [h, c % 4, r.int(1, 8), r.range(60, 200), width / 2, viewH / 2]);
  call(Op.controllerRender, [h, 0, 0, width, viewH]);
  call(Op.controllerSnapshot, [h]);
  // A drag cancelled by the host, the server's whole arrangement handed over, and a new
  // configuration (another layout kind, mode, cadence and snapping) with the same items.
  call(Op.controllerEvent, [h, EventType.pointerDown, 50, width / 2, viewH / 2, (t += 1), PointerKind.touch, 0]);
  call(Op.controllerTick, [h, (t += 0.6)]);
  call(Op.controllerEvent, [h, EventType.pointerMove, 50, width / 2 + 40, viewH / 2 + 30, (t += 0.1), PointerKind.touch, 0]);
  call(Op.controllerCancel, [h, (t += 0.1)]);
  call(Op.controllerEvent, [h, EventType.scroll, 0, r.range(0, 400), (t += 0.1)]);
  call(Op.controllerEvent, [h, EventType.externalEnter, width / 3, viewH / 3, (t += 0.1), 1, DropData.file | DropData.image]);
  call(Op.controllerEvent, [h, EventType.externalLeave, (t += 0.1)]);
  call(Op.controllerLiveSnapshot, [h, ...encodeSnapshot(sections), 0]);
  // The server's whole arrangement handed over in parts (a reload, issue 15): in another order
  // with other aspects, its first section split between two calls; then one naming an id twice
  // (refused, and forgotten: the finish after it is refused too).
  {
    const order = sections.map((s) => ({ id: s.id, items: [...s.items].reverse() })).reverse();
    const total = order.reduce((n, s) => n + s.items.length, 0);
    const group = (s, items) => [s.id, items.length, ...items.map((x) => x.id), ...items.map((x) => x.version), ...aspects(r, items.length)];
    const [head, ...rest] = order;
    const cut = r.int(0, head.items.length);
    call(Op.controllerLiveReplaceBegin, [h, total, order.length]);
    call(Op.controllerLiveReplaceAppend, [h, 1, ...group(head, head.items.slice(0, cut))]);
    call(Op.controllerLiveReplaceAppend, [h, 1 + rest.length, ...group(head, head.items.slice(cut)), ...rest.flatMap((s) => group(s, s.items))]);
    call(Op.controllerLiveReplaceFinish, [h]);
    call(Op.controllerRender, [h, 0, 0, width, viewH]);
    call(Op.controllerSnapshot, [h]);
    const twice = { id: nextID, version: 0 };
    call(Op.controllerLiveReplaceBegin, [h, 2, 1]);
    call(Op.controllerLiveReplaceAppend, [h, 1, ...group(head, [twice, twice])]);
    call(Op.controllerLiveReplaceFinish, [h]);
  }
  const next = layoutConfig(r, (c + 1) % 4);
  call(Op.controllerConfigure, [h, ...next, next[3], viewH, (c + 1) % 2, r.int(0, 2), r.int(0, 4), 0]);
  call(Op.controllerRender, [h, 0, 0, next[3], viewH]);
  call(Op.controllerDestroy, [h]);
}

// Read-only grids (op 73, a viewer's page): mouse and touch drags, a keyboard pick-up, an
// external drop, a paste and an undo lift and change nothing; made editable again, the same
// keyboard drag commits a move.
let readOnlyRefusals = 0;
for (let c = 0; c < 8; c++) {
  const r = rng(15000 + c);
  const sections = Array.from({ length: r.int(1, 3) }, (_, s) => ({
    id: 90 + s, items: Array.from({ length: r.int(4, 40) }, () => ({ id: nextID++, version: 0 })),
  }));
  const total = sections.reduce((n, s) => n + s.items.length, 0);
  const config = layoutConfig(r, c % 4);
  const width = config[3], viewH = r.range(300, 900);
  const h = call(Op.controllerCreate, [...encodeSnapshot(sections), ...aspects(r, total), ...config, width, viewH, c % 2, 1, 0])[1];
  const before = call(Op.controllerSnapshot, [h]);
  let t = 0;
  // Becoming read-only in the middle of a touch drag sends it home.
  const shown = readRender(call(Op.controllerRender, [h, 0, 0, width, viewH])).cells.find((x) => x.kind === 'item');
  const at = [shown.x + shown.w / 2, shown.y + shown.h / 2];
  call(Op.controllerEvent, [h, EventType.pointerDown, 7, ...at, t, 1, 0]);
  call(Op.controllerTick, [h, (t += 0.6)]);
  call(Op.controllerEvent, [h, EventType.pointerMove, 7, at[0] + 50, at[1] + 70, (t += 0.1), 1, 0]);
  call(Op.controllerReadOnly, [h, 1, t]);
  call(Op.controllerEvent, [h, EventType.pointerUp, 7, at[0] + 50, at[1] + 70, (t += 0.1), 1, 0]);
  for (let k = 0; k < 40; k++) call(Op.controllerTick, [h, (t += 1 / 60)]);
  const quiet = [];
  for (let g = 0; g < 6; g++) {
    const kind = Object.values(PointerKind)[g % 3];
    const p = [r.range(0, width), r.range(0, viewH)];
    quiet.push(call(Op.controllerEvent, [h, EventType.pointerDown, g, ...p, (t += 0.1), kind, 0]));
    quiet.push(call(Op.controllerTick, [h, (t += 0.6)]));
    for (let m = 0; m < 10; m++) quiet.push(call(Op.controllerEvent, [h, EventType.pointerMove, g, p[0] + m * 9, p[1] + m * 7, (t += 1 / 60), kind, 0]), call(Op.controllerTick, [h, t]));
    quiet.push(call(Op.controllerEvent, [h, EventType.pointerUp, g, p[0] + 90, p[1] + 70, (t += 1 / 60), kind, 0]));
  }
  call(Op.controllerFocus, [h, sections.find((s) => s.items.length).items[0].id]);
  for (const key of [Key.space, Key.right, Key.space]) quiet.push(call(Op.controllerEvent, [h, EventType.key, key, 0, (t += 0.1)]));
  quiet.push(call(Op.controllerEvent, [h, EventType.externalEnter, width / 2, viewH / 2, (t += 0.1), 1, DropData.url | DropData.image]));
  quiet.push(call(Op.controllerEvent, [h, EventType.externalDrop, width / 2, viewH / 2, (t += 0.1)]));
  quiet.push(call(Op.controllerPaste, [h, 1, 12]));
  quiet.push(call(Op.controllerHistory, [h, HistoryStep.undo]));
  for (const answer of quiet) {
    const bad = readEffects(answer).find((e) => e.type === 'dragBegan' || e.type === 'commit' || e.type === 'loadDroppedData');
    if (bad) throw new Error(`read-only grid ${c}: ${bad.type}`);
  }
  const after = call(Op.controllerSnapshot, [h]);
  if (after.length !== before.length || after.some((v, k) => v !== before[k])) throw new Error(`read-only grid ${c}: the arrangement changed`);
  if (readRender(call(Op.controllerRender, [h, 0, 0, width, viewH])).phase !== 'idle') throw new Error(`read-only grid ${c}: not idle`);
  readOnlyRefusals += quiet.length;
  call(Op.controllerReadOnly, [h, 0, t]);
  const moved = [Key.space, Key.right, Key.space].map((key) => call(Op.controllerEvent, [h, EventType.key, key, 0, (t += 0.1)]));
  for (let k = 0; k < 30; k++) call(Op.controllerTick, [h, (t += 1 / 60)]);
  if (!moved.some((a) => readEffects(a).some((e) => e.type === 'commit' && e.kind === 'move'))) throw new Error(`read-only grid ${c}: no move once editable again`);
  call(Op.controllerDestroy, [h]);
}

// Live changes (ops 70–72): the server's stages applied where they are. The engine's model
// afterwards must be exactly the target, its frames those of a controller created from the
// target (incremental layout edits lay out like a full prepare), and a stale change (the
// same stages again, whose sources are gone) is refused and changes nothing.
let liveIncremental = 0, liveWhole = 0, liveRefused = 0;
for (let c = 0; c < 48; c++) {
  const r = rng(12000 + c);
  const source = randomSnapshot(r);
  if (!source.some((s) => s.items.length > 2)) source[0].items.push(...Array.from({ length: 5 }, () => ({ id: nextID++, version: 0 })));
  const target = clone(source);
  const edits = {
    move(t) {
      const from = r.pick(t.filter((s) => s.items.length));
      const [item] = from.items.splice(r.int(0, from.items.length - 1), 1);
      const to = r.pick(t);
      to.items.splice(r.int(0, to.items.length), 0, item);
    },
    insert(t) { const s = r.pick(t); s.items.splice(r.int(0, s.items.length), 0, { id: nextID++, version: r.int(0, 2) }); },
    remove(t) { const s = r.pick(t.filter((x) => x.items.length)); s.items.splice(r.int(0, s.items.length - 1), 1); },
    reload(t) { const s = r.pick(t.filter((x) => x.items.length)); s.items[r.int(0, s.items.length - 1)].version++; },
  };
  const kinds = Object.keys(edits);
  if (c % 12 === 11) workloads.sections(r, target);                          // section changes: the O(n) path
  else if (c % 12 === 10) { workloads.moves(r, target); workloads.deletesInserts(r, target); } // many items
  else for (let e = r.int(1, 4); e > 0; e--) edits[c % 4 === 3 ? r.pick(kinds) : kinds[c % 4]](target);
  const total = source.reduce((n, s) => n + s.items.length, 0);
  const asp = aspects(r, total).map((a) => (Number.isFinite(a) && a > 0 ? a : 1));
  const aspectOf = new Map();
  source.flatMap((s) => s.items).forEach((it, k) => aspectOf.set(it.id, asp[k]));
  const config = layoutConfig(r, c % 4);
  const width = config[3];
  const h = call(Op.controllerCreate, [...encodeSnapshot(source), ...asp, ...config, width, 700, 0, 1, 0])[1];
  const withPlaceholders = c % 8 === 7;
  if (withPlaceholders) {
    // An external drop of two URLs leaves two placeholders in the arrangement.
    call(Op.controllerEvent, [h, EventType.externalEnter, width / 2, 100, 1, 2, DropData.url, DropData.url]);
    call(Op.controllerEvent, [h, EventType.externalMove, width / 2, 120, 0, 1.1]);
    call(Op.controllerEvent, [h, EventType.externalDrop, width / 2, 120, 1.2]);
    for (let k = 0; k < 30; k++) call(Op.controllerTick, [h, 1.2 + k / 60]);
  }
  const diff = call(Op.diff, [...encodeSnapshot(source), ...encodeSnapshot(target)]);
  const [stages] = readStages(diff, 1);
  const fresh = [];
  for (const s of target) for (const it of s.items) if (!aspectOf.has(it.id)) { aspectOf.set(it.id, r.range(0.3, 3)); fresh.push(it.id, aspectOf.get(it.id)); }
  const first = stages[0];
  const sources = first ? [...first.itemDeletes, ...first.itemMoves.map((m) => m.from)].map(([s, i]) => source[s].items[i].id) : [];
  const live = [h, ...diff.slice(1), fresh.length / 2, ...fresh, sources.length, ...sources];
  const answer = call(Op.controllerLiveChanges, live);
  if (answer[0] !== 0) throw new Error(`live change ${c} refused: ${answer[0]}`);
  const itemsOnly = stages.every((st) => !st.sectionDeletes.length && !st.sectionInserts.length && !st.sectionMoves.length);
  const named = stages.reduce((n, st) => n + st.itemDeletes.length + st.itemInserts.length + st.itemMoves.length + st.itemReloads.length, 0);
  if (itemsOnly && !withPlaceholders && named <= 32) liveIncremental++; else liveWhole++;
  if (!readEffects(answer).some((e) => e.type === 'commit' && e.kind === 'liveUpdate')) throw new Error(`live change ${c}: no liveUpdate commit`);
  const expected = [0, ...encodeSnapshot(target)];
  const model = call(Op.controllerSnapshot, [h]);
  if (model.length !== expected.length || model.some((v, k) => v !== expected[k])) throw new Error(`live change ${c}: the model is not the target`);
  if (!withPlaceholders) {
    const ref = call(Op.controllerCreate, [...encodeSnapshot(target), ...target.flatMap((s) => s.items.map((it) => aspectOf.get(it.id))), ...config, width, 700, 0, 1, 0])[1];
    const mine = call(Op.controllerRender, [h, 0, 0, width, 1e7]), theirs = call(Op.controllerRender, [ref, 0, 0, width, 1e7]);
    if (mine.length !== theirs.length || mine.some((v, k) => !Object.is(v, theirs[k]))) throw new Error(`live change ${c}: frames differ from a fresh layout of the target`);
    call(Op.controllerDestroy, [ref]);
  }
  // Op 71: the target's counts and a few items at their places match; a wrong version does not.
  const counts = target.map((s) => s.items.length);
  const placed = [];
  target.forEach((s, si) => s.items.forEach((it, i) => { if (r.next() < 0.1) placed.push(it.id, si, i, it.version); }));
  const gone = source.flatMap((s) => s.items).filter((it) => !target.some((t) => t.items.some((x) => x.id === it.id))).map((it) => it.id);
  if (call(Op.controllerModelMatches, [h, counts.length, ...counts, placed.length / 4, ...placed, gone.length, ...gone])[1] !== 1) throw new Error(`live change ${c}: model does not match`);
  if (placed.length && call(Op.controllerModelMatches, [h, counts.length, ...counts, 1, placed[0], placed[1], placed[2], placed[3] + 1, 0])[1] !== 0) throw new Error(`live change ${c}: a wrong version matched`);
  // An entry with section -1: the item's version wherever it is (a reloaded item).
  if (placed.length) {
    const [id, , , version] = placed;
    if (call(Op.controllerModelMatches, [h, counts.length, ...counts, 1, id, -1, -1, version, 0])[1] !== 1) throw new Error(`live change ${c}: an item's version anywhere did not match`);
    if (call(Op.controllerModelMatches, [h, counts.length, ...counts, 1, id, -1, -1, version + 1, 0])[1] !== 0) throw new Error(`live change ${c}: a wrong version anywhere matched`);
  }
  // The same change again no longer applies: its sources moved on, or its inserted ids exist.
  if (sources.length || (first && first.itemInserts.length)) {
    const again = call(Op.controllerLiveChanges, live);
    if (again[0] !== -7) throw new Error(`live change ${c}: a stale change was not refused (${again[0]})`);
    const still = call(Op.controllerSnapshot, [h]);
    if (still.some((v, k) => v !== expected[k])) throw new Error(`live change ${c}: a refused change changed the model`);
    liveRefused++;
  }
  call(Op.controllerDestroy, [h]);
}
if (liveIncremental < 20 || liveWhole < 5) throw new Error(`live changes: ${liveIncremental} incremental, ${liveWhole} whole — both paths must be exercised`);

// The seeds' whole scenario (SeedReplay.run(): swap, reorder with auto-scroll and a wheel
// turn, multi-drag, placeholders, trash, gap cells, keyboard, copy, undo/redo, live update,
// paste) once more as one call: its digests must match too.
const seed = call(Op.seedReplay, [], testEngine);
if (engine.call(Op.seedReplay, [])[0] !== protocol.Status.unknownOperation) throw new Error('engine.wasm carries the test support (seed replay)');
if (seed[0] !== 0 || seed[8] < 10) throw new Error(`seed replay: ${seed.slice(0, 9)}`);

// The sessions must have done something: count the commits the engine emitted.
const commits = {};
let wheelScrolls = 0;
for (let i = 0; i < calls.length; i++) {
  const op = calls[i][0];
  if (![Op.controllerEvent, Op.controllerTick, Op.controllerHistory, Op.controllerCommitInsertion, Op.controllerDeletePlaceholder, Op.controllerPaste, Op.controllerArrange].includes(op)) continue;
  for (const e of readEffects(answers[i])) {
    if (e.type === 'commit') commits[e.kind] = (commits[e.kind] ?? 0) + 1;
    if (e.type === 'scrollBy' && op === Op.controllerEvent && calls[i][1][1] === EventType.wheel) wheelScrolls++;
  }
}
if (!wheelScrolls) throw new Error('no wheel event scrolled in the replayed sessions');
for (const kind of ['move', 'copy', 'delete', 'insertPlaceholders', 'commitPlaceholder', 'deletePlaceholder', 'undo', 'redo']) {
  if (!commits[kind]) throw new Error(`replayed sessions never committed a ${kind}: ${JSON.stringify(commits)}`);
}

// The generated protocol is covered: every operation, event type, key and layout kind it
// declares went through both engines above.
const used = { Op: new Set(), EventType: new Set(), Key: new Set(), LayoutKind: new Set() };
for (const [op, input] of calls) {
  used.Op.add(op);
  if (op === Op.controllerEvent) used.EventType.add(input[1]);
  if (op === Op.controllerEvent && input[1] === EventType.key) used.Key.add(input[2]);
  if (op === Op.layoutCreate || op === Op.controllerPinch) used.LayoutKind.add(op === Op.layoutCreate ? input[0] : input[1]);
}
for (const [table, codes] of Object.entries(used)) {
  const missing = Object.entries(protocol[table]).filter(([, code]) => !codes.has(code)).map(([name]) => name);
  if (missing.length) throw new Error(`the parity run never used ${table} ${missing.join(', ')}`);
}

// The native side.
const dir = mkdtempSync(join(tmpdir(), 'parity-'));
const words = [];
for (const [op, input] of calls) words.push(op, input.length, ...input);
writeFileSync(join(dir, 'calls.bin'), Buffer.from(Float64Array.from(words).buffer));
execFileSync(cli, ['replay', join(dir, 'calls.bin'), join(dir, 'answers.bin')], { stdio: 'inherit' });
const raw = readFileSync(join(dir, 'answers.bin'));
const native = new Float64Array(raw.buffer, raw.byteOffset, raw.length / 8);

let at = 0, values = 0, frames = 0;
for (let i = 0; i < calls.length; i++) {
  const n = native[at++];
  const mine = answers[i];
  const theirs = native.subarray(at, at + n);
  at += n;
  const differs = n !== mine.length || mine.some((v, k) => !Object.is(v, theirs[k]));
  if (differs) {
    const k = mine.findIndex((v, j) => !Object.is(v, theirs[j]));
    console.error(`MISMATCH in call ${i} (op ${calls[i][0]}), first at value ${k}: wasm ${mine[k]} native ${theirs[k]}; lengths ${mine.length}/${n}`);
    process.exit(1);
  }
  values += n;
  if (calls[i][0] === Op.layoutFrames && mine[0] === 0) frames += (n - 4) / 4;
}
if (at !== native.length) { console.error('native answered more calls than were made'); process.exit(1); }
console.log(`commits in the replayed sessions: ${JSON.stringify(commits)}; wheel scrolls: ${wheelScrolls}`);
console.log(`parity ok: ${calls.length} calls, ${values} values identical (${frames} frames of items, headers and gap cells; 100 diffs and their application; 24 replayed drag sessions with wheel turns and pastes; 8 read-only grids refusing ${readOnlyRefusals} lifts, drops, pastes and undos; the seed scenario's digests; ${liveIncremental} incremental and ${liveWhole} whole live changes, ${liveRefused} stale ones refused)`);
