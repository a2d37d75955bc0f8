import Testing
@testable import GridEngine

/// Issue 11: a commit carries the server's edits, and the page sends them as they are. A
/// stand-in server (items by section, a trash) applies each commit's edits as the real one
/// does (docs/API.md: move after an item or first in a section, swap, copy, trash, restore);
/// after every commit — drags, swaps, copies, trash, placeholders, keyboard moves, every undo
/// and redo — its arrangement must be exactly the engine's model.
@Suite struct ServerEditsTests {
    struct Server {
        var sections: [(id: SectionID, items: [ItemID])]
        var trash: Set<ItemID> = []

        init(_ s: Snapshot) {
            sections = (0..<s.sectionCount).map { (s.sectionID(at: $0), s.items(inSection: $0)) }
        }

        mutating func remove(_ ids: [ItemID]) {
            let gone = Set(ids)
            for k in sections.indices { sections[k].items.removeAll { gone.contains($0) } }
        }

        mutating func insert(_ ids: [ItemID], at anchor: ServerAnchor) {
            for k in sections.indices {
                switch anchor {
                case .after(let id):
                    if let i = sections[k].items.firstIndex(of: id) { sections[k].items.insert(contentsOf: ids, at: i + 1); return }
                case .before(let id):
                    if let i = sections[k].items.firstIndex(of: id) { sections[k].items.insert(contentsOf: ids, at: i); return }
                case .sectionStart(let s):
                    if sections[k].id == s { sections[k].items.insert(contentsOf: ids, at: 0); return }
                case .sectionEnd(let s):
                    if sections[k].id == s { sections[k].items.append(contentsOf: ids); return }
                }
            }
            Issue.record("anchor \(anchor) not found on the server")
        }

        mutating func apply(_ edit: ServerEdit, copies: inout [ItemID]) {
            switch edit {
            case .move(let items, let to):
                for id in items { #expect(!trash.contains(id), "moving \(id), which is in the trash") }
                remove(items)
                insert(items, at: to)
            case .swap(let a, let b):
                for k in sections.indices {
                    for i in sections[k].items.indices {
                        if sections[k].items[i] == a { sections[k].items[i] = b } else if sections[k].items[i] == b { sections[k].items[i] = a }
                    }
                }
            case .copy(let items, let to):
                // The server names the copies; here they get the ids the engine showed them with.
                let named = Array(copies.prefix(items.count))
                copies.removeFirst(named.count)
                insert(named, at: to)
            case .trash(let items):
                for id in items { #expect(!trash.contains(id)) }
                remove(items)
                trash.formUnion(items)
            case .restore(let items):
                for id in items { #expect(trash.contains(id), "restoring \(id), which is not in the trash") }
                trash.subtract(items)
                // Back at the end of the first section; the move that follows places it.
                sections[0].items.append(contentsOf: items)
            case .createSection, .moveSection, .deleteSection:
                Issue.record("no section edits in these scenarios")
            }
        }

        var arrangement: [[ItemID]] { sections.map(\.items) }

        var snapshot: Snapshot { try! Snapshot(sections.map { (id: $0.id, items: $0.items) }) }

        mutating func rename(_ id: ItemID, to new: ItemID) {
            for k in sections.indices { if let i = sections[k].items.firstIndex(of: id) { sections[k].items[i] = new } }
        }
    }

    /// Applies every commit's edits since `from` to the server; checks it equals the model.
    static func follow(_ hand: Hand, _ server: inout Server, from: inout Int) {
        let commits = hand.commits
        for c in commits[from...] {
            var copies = c.copies
            for e in c.edits { server.apply(e, copies: &copies) }
            if c.kind == .liveUpdate || c.kind == .insertPlaceholders || c.kind == .deletePlaceholder { #expect(c.edits.isEmpty) }
        }
        from = commits.count
        let model = hand.grid.modelSnapshot
        #expect(server.arrangement == (0..<model.sectionCount).map { model.items(inSection: $0) },
                "server \(server.arrangement.map { $0.map(Fruit.name) }) vs engine \(Fruit.names(model))")
    }

    @Test func everyCommitsEditsTakeTheServerToTheEnginesArrangementThroughUndoAndRedo() throws {
        var grid = Fruit.grid([Array(Fruit.names.prefix(8)), Array(Fruit.names.suffix(4))])
        grid.outsideTargets = [TrashAndPolicyTests.trash]
        var hand = Hand(grid)
        var server = Server(hand.grid.modelSnapshot)
        var seen = 0

        // A swap, an Option copy, a drag to the trash, two placeholders (one committed), a
        // keyboard move, and a move across sections.
        hand.grid.configuration.reorderMode = .swap
        hand.longPress("Banana"); hand.drag(to: hand.centre("Date")); hand.up(hand.centre("Date")); hand.settle()
        hand.grid.configuration.reorderMode = .insert
        Self.follow(hand, &server, from: &seen)
        let swapped = [ServerEdit.swap(Fruit.id("Banana"), Fruit.id("Date")), .swap(Fruit.id("Date"), Fruit.id("Banana"))]
        #expect(hand.commits.last.map { $0.edits.count == 1 && swapped.contains($0.edits[0]) } == true)

        hand.modifiers = [.option]
        hand.longPress("Apple"); hand.drag(to: hand.centre("Sheep")); hand.up(hand.grid.session!.location); hand.settle()
        hand.modifiers = []
        if case .copy(let items, _)? = hand.commits.last?.edits.first { #expect(items == [Fruit.id("Apple")]) } else { Issue.record("no copy edit") }
        Self.follow(hand, &server, from: &seen)
        // The server names the copy (id 900) and the page hands its arrangement back, as after
        // every copy: the engine's own id for it is gone (an undo of the copy then skips it).
        server.rename(hand.commits.last!.copies[0], to: ItemID(900))
        hand.absorb(try hand.grid.applyLiveSnapshot(server.snapshot, aspects: [ItemID(900): 1]))
        Self.follow(hand, &server, from: &seen)

        hand.longPress("Cherry"); hand.drag(to: Point(x: 340, y: 565)); hand.up(Point(x: 340, y: 565)); hand.settle()
        Self.follow(hand, &server, from: &seen)
        #expect(hand.commits.last?.edits == [.trash([Fruit.id("Cherry")])])

        let waiting = PlaceholderTests.dropTwoURLs(&hand)
        // The upload is created where the engine says: before the next item the server knows.
        let destination = hand.grid.serverDestination(ofPlaceholder: waiting[1].itemID)
        let shown = hand.grid.snapshot.items(inSection: 0)
        let next = shown[(shown.firstIndex(of: waiting[1].itemID)! + 1)...].first { !hand.grid.isPlaceholder($0) }!
        #expect(destination == .before(next))
        #expect(hand.grid.serverDestination(ofPlaceholder: ItemID(424242)) == nil)
        server.insert([ItemID(800)], at: destination!)
        hand.absorb(try hand.grid.commitInsertion(waiting[1], item: ItemID(800), aspect: 0.75))
        hand.absorb(try hand.grid.deletePlaceholder(waiting[0]))
        Self.follow(hand, &server, from: &seen)

        hand.grid.focus(Fruit.id("Sheep"))
        hand.key(.space); hand.key(.left); hand.key(.space); hand.settle()
        Self.follow(hand, &server, from: &seen)
        if case .move(let items, .after(_))? = hand.commits.last?.edits.first { #expect(items == [Fruit.id("Sheep")]) } else { Issue.record("no move after an item") }

        hand.longPress("GreatWall"); hand.drag(to: hand.centre("Dragon")); hand.up(hand.centre("Dragon")); hand.settle()
        Self.follow(hand, &server, from: &seen)

        // Everything undone, one commit at a time, then redone: the trashed Cherry is restored
        // before it is placed, and trashed again by the redo.
        var undos = 0
        while hand.grid.canUndo { hand.absorb(hand.grid.undo()); Self.follow(hand, &server, from: &seen); undos += 1 }
        #expect(undos >= 6)
        #expect(hand.commits.contains { $0.kind == .undo && $0.edits.contains(.restore([Fruit.id("Cherry")])) })
        #expect(server.trash == [ItemID(800)])   // the uploaded item, undone
        while hand.grid.canRedo { hand.absorb(hand.grid.redo()); Self.follow(hand, &server, from: &seen) }
        #expect(server.trash.contains(Fruit.id("Cherry")))
    }

    @Test func aMoveToTheFrontOfASectionIsAnchoredAtTheSectionStart() {
        var hand = Hand(Fruit.grid([["Apple", "Banana", "Cherry"], ["Date", "Dragon"]]))
        var server = Server(hand.grid.modelSnapshot)
        var seen = 0
        hand.grid.focus(Fruit.id("Banana"))
        hand.key(.space); hand.key(.left); hand.key(.space); hand.settle()
        #expect(hand.commits.last?.edits == [.move(items: [Fruit.id("Banana")], to: .sectionStart(SectionID(100)))])
        Self.follow(hand, &server, from: &seen)
    }

    @Test func aPlaceholderLastInItsSectionIsCreatedAtTheSectionsEnd() {
        var hand = Hand(Fruit.grid([["Apple", "Banana"], ["Date"]]))
        hand.grid.focus(Fruit.id("Banana"))
        hand.absorb(hand.grid.paste([[.url, .image], [.file, .image]]))
        let waiting = hand.effects.compactMap { e -> ItemID? in
            if case .loadDroppedData(let p, _, _) = e { return p.itemID } else { return nil }
        }
        #expect(waiting.count == 2)
        #expect(waiting.map { hand.grid.serverDestination(ofPlaceholder: $0) } == [.sectionEnd(SectionID(100)), .sectionEnd(SectionID(100))])
    }
}
