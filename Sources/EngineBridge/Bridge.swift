import GridEngine

/// Version of the flat-buffer protocol between the page and engine.wasm.
public let engineBridgeVersion: Int = 1
