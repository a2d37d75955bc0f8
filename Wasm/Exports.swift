// C-ABI exports of engine.wasm. Compiled only by scripts/build-wasm.sh.
import EngineBridge

@_expose(wasm, "engine_version")
@_cdecl("engine_version")
public func engine_version() -> Int32 { Int32(engineBridgeVersion) }
