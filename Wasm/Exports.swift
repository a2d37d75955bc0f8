// C-ABI exports of engine.wasm. Compiled only by scripts/build-wasm.sh.
//
// The page writes a call's input into the buffer `engine_input(count)` returns, calls
// `engine_call(op, count)` and reads the answer (its length is the return value) from
// `engine_output()`. One engine per module instance; single-threaded.
import EngineBridge

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
