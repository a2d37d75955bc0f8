// C-ABI exports of engine.wasm. Compiled only by scripts/build-wasm.sh.
//
// The page writes a call's input into the buffer `engine_input(count)` returns, calls
// `engine_call(op, count)` and reads the answer (its length is the return value) from
// `engine_output()`. One engine per module instance; single-threaded.
import EngineBridge
import GridEngine

nonisolated(unsafe) var _bridge = EngineBridge()
nonisolated(unsafe) var _input = UnsafeMutablePointer<Double>.allocate(capacity: 1024)
nonisolated(unsafe) var _inputCapacity = 1024
/// The most input doubles kept between calls (1 MiB).
let _inputKeep = 1 << 17
nonisolated(unsafe) var _answer: [Double] = []
nonisolated(unsafe) var _output = UnsafeMutablePointer<Double>.allocate(capacity: 1024)
nonisolated(unsafe) var _outputCapacity = 1024

@_expose(wasm, "engine_version")
@_cdecl("engine_version")
public func engine_version() -> Int32 { Int32(engineBridgeVersion) }

/// A buffer for at least `count` input doubles; valid until the next `engine_input`.
@_expose(wasm, "engine_input")
@_cdecl("engine_input")
public func engine_input(_ count: Int32) -> UnsafeMutablePointer<Double> {
    let n = Int(max(count, 1))
    if n > _inputCapacity {
        _input.deallocate()
        _inputCapacity = max(n, _inputCapacity * 2)
        _input = UnsafeMutablePointer<Double>.allocate(capacity: _inputCapacity)
    }
    return _input
}

/// Runs operation `op` on the first `count` input doubles; returns the answer's length.
@_expose(wasm, "engine_call")
@_cdecl("engine_call")
public func engine_call(_ op: Int32, _ count: Int32) -> Int32 {
    let n = Int(max(0, min(count, Int32(_inputCapacity))))
    _bridge.call(rawOp: op, UnsafeBufferPointer(start: _input, count: n), into: &_answer)
    if _inputCapacity > _inputKeep {
        // A big input (a million-item gallery's load: ~24 MB) is not kept for the next call:
        // its memory goes back to the allocator, for the tables of a reload among others.
        _input.deallocate()
        _inputCapacity = 1024
        _input = UnsafeMutablePointer<Double>.allocate(capacity: _inputCapacity)
    }
    if _answer.count > _outputCapacity {
        _output.deallocate()
        _outputCapacity = max(_answer.count, _outputCapacity * 2)
        _output = UnsafeMutablePointer<Double>.allocate(capacity: _outputCapacity)
    }
    _answer.withUnsafeBufferPointer { src in
        for i in 0..<src.count { _output[i] = src[i] }
    }
    return Int32(_answer.count)
}

/// The last answer; valid until the next `engine_call`.
@_expose(wasm, "engine_output")
@_cdecl("engine_output")
public func engine_output() -> UnsafeMutablePointer<Double> { _output }

/// Whether `engine_warm` built its one big snapshot already (once is enough to tier its code up).
nonisolated(unsafe) var _bulkBuildWarmed = false

/// Makes the engine's first real load cheaper: `rounds` loads of a made-up gallery of `items`
/// items in each layout the page opens (waterfall, grid, justified), each destroyed at once. The
/// code of a load is compiled (V8 compiles a function at its first call) and its hot functions
/// tiered up before the page's first gallery arrives, and the allocator's heap is started.
/// early.js calls it as soon as engine.wasm is instantiated, while the page's modules still
/// download (issue 15.2: a fresh engine's first load of 100k items took 30 ms, a warm one 6).
/// Leaves nothing behind; answers the loads made.
@_expose(wasm, "engine_warm")
@_cdecl("engine_warm")
public func engine_warm(_ rounds: Int32, _ items: Int32) -> Int32 {
    let sections = 10, per = max(1, Int(items) / sections)
    var input: [Double] = []
    input.reserveCapacity(1 + 2 * sections + 3 * per * sections + 18)
    input.append(Double(sections))
    var id = 1
    for s in 0..<sections {
        input.append(Double(s + 1))
        input.append(Double(per))
        for _ in 0..<per { input.append(Double(id)); id += 1 }
        for _ in 0..<per { input.append(0) }
    }
    for i in 0..<(per * sections) { input.append(0.5 + Double(i % 11) / 4) }
    let tail = input.count
    var answer: [Double] = []
    var loads: Int32 = 0
    for _ in 0..<max(0, Int(rounds)) {
        // [kind, columns or row height, square cells, width, header, insets ×4, spacing ×2, 0, 0.5,
        //  viewport width and height, reorder mode, cadence, snapping]: Controller.configuration().
        for (kind, size, square) in [(BridgeLayoutKind.waterfall, 4.0, 0.0), (.grid, 4, 1), (.justified, 230, 0)] {
            input.removeLast(input.count - tail)
            input.append(contentsOf: [Double(kind.rawValue), size, square, 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, 0, 1, 0])
            input.withUnsafeBufferPointer { _bridge.call(.controllerCreate, $0, into: &answer) }
            guard answer.count > 1, answer[0] == 0 else { return loads }
            let handle = [answer[1]]
            handle.withUnsafeBufferPointer { _bridge.call(.controllerDestroy, $0, into: &answer) }
            loads += 1
        }
    }
    if rounds > 0 && Int(items) < Snapshot.bulkBuildMinimum && !_bulkBuildWarmed {
        _bulkBuildWarmed = true
        // A gallery of at least `bulkBuildMinimum` items fills its id table in bulk (dense over
        // ids close together, else in hash order), code the loads above never reach: built once
        // each here, so that V8 tiers it up before the first big gallery's load, which otherwise
        // ran it as baseline code (a 1M load: ~150 instead of ~110 ms under node; a snapshot of
        // 16k items here: ~1 ms). The second one's ids are 16 apart: too spread to be dense.
        for step in [1, 16] as [UInt64] {
            let ids = (1...UInt64(Snapshot.bulkBuildMinimum)).map { ItemID($0 &* step) }
            _ = try? Snapshot([(id: SectionID(1), items: ids, versions: [UInt32](repeating: 0, count: ids.count))])
        }
    }
    return loads
}
