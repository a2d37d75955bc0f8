import GridEngine

// Test support: the seeds' scenario played in the engine, for the parity test (native vs
// wasm). Compiled only with ENGINE_TEST_SUPPORT (debug builds, engine-test.wasm); engine.wasm
// answers BridgeOp.seedReplay with unknownOperation.
#if ENGINE_TEST_SUPPORT
extension EngineBridge {
    // [] → [state digest high, low, effects digest high, low, render digest high, low (32-bit
    //  halves), effect count, commit count, section count, per section: count, item ids]
    static func _seedReplay(_ out: inout [Double]) {
        let result = SeedReplay.run()
        for d in [result.stateDigest, result.effectsDigest, result.renderDigest] {
            out.append(Double(d >> 32)); out.append(Double(d & 0xFFFF_FFFF))
        }
        out.append(Double(result.effectCount)); out.append(Double(result.commitCount))
        out.append(Double(result.finalOrder.count))
        for section in result.finalOrder {
            out.append(Double(section.count))
            for id in section { out.append(Double(id)) }
        }
    }
}
#endif
