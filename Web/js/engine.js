// The engine bridge: loads engine.wasm (GridEngine compiled with Embedded Swift) and
// calls its flat command surface. Works in the page and under node (no DOM here).
//
//   const engine = await Engine.load(bytesOrResponse);
//   const [status, handle] = engine.call(Op.layoutCreate, [2, 3, 0, 390, 0, 0, 0, 0, 0, 4, 4, 0, 0.5]);
//
// Layouts of every operation's input and answer: docs/engine-bridge.md.

export const Op = Object.freeze({
  version: 0,
  layoutCreate: 1, layoutPrepare: 2, layoutFrames: 3, layoutAttributes: 4,
  layoutHitTest: 5, layoutDropDestination: 6, layoutMoveItem: 7, layoutInsertItem: 8,
  layoutDeleteItem: 9, layoutReconfigure: 10, layoutSetGapCells: 11, layoutDestroy: 12,
  diff: 20, snapshotApply: 21,
  controllerCreate: 40, controllerConfigure: 41, controllerEvent: 42, controllerTick: 43,
  controllerRender: 44, controllerLiveSnapshot: 45, controllerCommitInsertion: 46,
  controllerDeletePlaceholder: 47, controllerHistory: 48, controllerAddToDrag: 49,
  controllerCancel: 50, controllerScrollTarget: 51, controllerFocus: 52, controllerSnapshot: 53,
  controllerOutsideTargets: 54, controllerTitles: 55, controllerPinch: 56, controllerDestroy: 57,
  controllerLiveChanges: 70, controllerModelMatches: 71, controllerModelItems: 72, controllerReadOnly: 73,
  controllerArrange: 74,
});

export const Kind = Object.freeze({ grid: 0, flow: 1, waterfall: 2, justified: 3 });

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
    return new Engine(result.instance);
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
