import Testing
@testable import GridEngine

/// The replayed session the wasm parity test compares: it must be deterministic, do what
/// the seeds describe, and emit only valid batch updates.
@Suite struct SeedReplayTests {
    @Test func theSeedSessionIsDeterministicAndEveryBatchAppliesToWhatWasShown() throws {
        let a = SeedReplay.run(), b = SeedReplay.run()
        #expect(a.stateDigest == b.stateDigest && a.effectsDigest == b.effectsDigest && a.renderDigest == b.renderDigest)
        var shown = a.initial
        var kinds: [CommitKind] = []
        for e in a.effects {
            guard case .commit(let c) = e else { continue }
            kinds.append(c.kind)
            for stage in c.updates {
                try BatchUpdate.validate(stage, against: shown)
                shown = try shown.applying(stage)
            }
        }
        #expect(shown == a.final)
        #expect(kinds == [.swap, .move, .move, .insertPlaceholders, .move, .deletePlaceholder, .commitPlaceholder,
                          .move, .delete, .copy, .undo, .undo, .redo, .liveUpdate, .insertPlaceholders, .commitPlaceholder])
        let all = a.finalOrder.flatMap { $0 }
        #expect(all.first == 900)                         // the live insert
        #expect(all.firstIndex(of: 501) == all.firstIndex(of: 1).map { $0 + 1 })   // the pasted image, after Apple
        #expect(a.effects.contains { if case .scrollBy(let dy) = $0 { return dy < 0 } else { return false } })   // the wheel
        #expect(all.contains(500) && !all.contains(4))    // the committed URL; Date went to the trash, redone
        #expect(Set(all).count == all.count)
        #expect(a.effects.contains(.announce("TaiTan picked up, position 2 of 5, in section 2")))   // where seed 002's eased auto-scroll (issue 13) left Cherry
        #expect(a.effects.contains { if case .scrollBy = $0 { return true } else { return false } })
    }

    @Test func digestsSeeEveryDifference() {
        var grid = SeedReplay.makeController()
        let before = (grid.stateDigest, grid.renderDigest)
        grid.focus(ItemID(3))
        #expect(grid.stateDigest != before.0 && grid.renderDigest != before.1)
        #expect(GridController.digest([.scrollBy(dy: 1)]) != GridController.digest([.scrollBy(dy: 2)]))
        #expect(GridController.digest([.announce("a")]) != GridController.digest([.announce("b")]))
    }
}
