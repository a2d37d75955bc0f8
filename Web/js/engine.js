// The engine bridge: loads engine.wasm (GridEngine compiled with Embedded Swift) and
// calls its flat command surface. Works in the page and under node (no DOM here).
//
//   const engine = await Engine.load(bytesOrResponse);
//   const [status, handle] = engine.call(Op.layoutCreate, [LayoutKind.waterfall, 3, 0, 390, ...]);
//
// The codes (Op, LayoutKind, EventType, …) come from ./protocol.js, which the wasm build
// generates from Sources/EngineBridge/BridgeProtocol.swift beside engine.wasm; the layout of
// each operation's input and answer is written beside its Swift implementation.

import { protocolVersion } from './protocol.js';

export class Engine {
  constructor(instance) {
    this.exports = instance.exports;
    this.memory = instance.exports.memory;
  }

  static async load(source) {
    const imports = {};
    let result;
    if (source instanceof Promise) source = await source;
    if (source?.instance instanceof WebAssembly.Instance) {
      result = source; // instantiated and warmed already (early.js: engine_warm)
    } else if (typeof Response !== 'undefined' && source instanceof Response) {
      result = await WebAssembly.instantiateStreaming(source, imports);
    } else {
      result = await WebAssembly.instantiate(source, imports);
    }
    const engine = new Engine(result.instance);
    engine.warmed = result === source; // loads before the first one need not warm it (Controller.warmLoad)
    if (engine.protocolVersion !== protocolVersion) {
      throw new Error(`engine.wasm speaks protocol ${engine.protocolVersion}, the page ${protocolVersion}: rebuild with scripts/build-wasm.sh`);
    }
    return engine;
  }

  get protocolVersion() { return this.exports.engine_version(); }

  /// Runs one operation; `input` is an array or Float64Array. Returns a Float64Array whose
  /// first value is the status (0 = ok). The answer is a view into wasm memory, valid until
  /// the next call: copy it (`.slice()`) to keep it.
  callView(op, input) {
    const n = input.length;
    const ptr = this.exports.engine_input(n);
    new Float64Array(this.memory.buffer, ptr, n).set(input);
    const count = this.exports.engine_call(op, n);
    const out = this.exports.engine_output();
    return new Float64Array(this.memory.buffer, out, count);
  }

  /// Like `callView`, but the answer is the caller's own copy.
  call(op, input) { return this.callView(op, input).slice(); }

  /// Like `call`, with the input written straight into wasm memory: `write(into)` calls
  /// `into(n)` for a Float64Array of n values there, fills it and answers it. A million-item
  /// gallery's arrangement (~24 MB) is then not built in a JS array first and copied.
  callWritten(op, write) {
    const input = write((n) => new Float64Array(this.memory.buffer, this.exports.engine_input(Math.max(n, 1)), n));
    const count = this.exports.engine_call(op, input.length);
    return new Float64Array(this.memory.buffer, this.exports.engine_output(), count).slice();
  }

  /// Makes about `bytes` of wasm memory ready for the engine's allocator ahead of a big load whose
  /// size the page knows while its data still downloads: grows the memory if less is free (the
  /// allocator takes memory the page grew before growing more: Wasm/runtime.c) and answers the
  /// range above the allocator's heap top — memory it has not used yet, grown now or before (it
  /// grows in 16 MB steps) — for `touch` to write a slice at a time. A page's first write costs
  /// the system a fault and a zeroed page (~1–3 µs; ~100 ms for the ~150 MB of a million-item
  /// gallery on this machine, ~10 ms for 100k), which then falls in the download's wait instead of
  /// the load. At most `bytes` from the top; null when no memory is left above it.
  reserve(bytes) {
    const top = new Float64Array(this.memory.buffer, this.exports.engine_heap_stats(), 4)[3];
    const size = this.memory.buffer.byteLength;
    const pages = Math.ceil((bytes - (size - top)) / 65536);
    if (pages > 0) { try { this.memory.grow(pages); } catch { /* the load grows what it can */ } }
    const range = { at: top - (top % 4096), end: Math.min(this.memory.buffer.byteLength, top + bytes) };
    return range.at < range.end ? range : null;
  }

  /// Writes each page of the next `bytes` of `range` (from `reserve`) with its own first byte;
  /// answers whether pages remain. The byte written is the one read, so a page the engine took
  /// meanwhile (a warm-up load between two slices) keeps what it holds.
  touch(range, bytes) {
    const u = new Uint8Array(this.memory.buffer);
    const end = Math.min(range.end, range.at + bytes);
    for (let i = range.at; i < end; i += 4096) u[i] = u[i];
    range.at = end;
    return end < range.end;
  }
}
