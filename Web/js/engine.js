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
    if (typeof Response !== 'undefined' && source instanceof Response) {
      result = await WebAssembly.instantiateStreaming(source, imports);
    } else {
      result = await WebAssembly.instantiate(source, imports);
    }
    const engine = new Engine(result.instance);
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
}
