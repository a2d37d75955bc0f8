import Testing
@testable import GridEngine

/// Seed 003: the trash can (F21), external data (F18), read-only galleries and items.
@Suite struct TrashAndPolicyTests {
    static let trash = OutsideTarget(id: 7, frame: Rect(x: 300, y: 540, width: 80, height: 50))

    @Test func droppingCherryOnTheTrashRemovesItWithAShrinkIntoTheCan() {
        var grid = Fruit.grid()
        grid.outsideTargets = [TrashAndPolicyTests.trash]
        var hand = Hand(grid)
        hand.longPress("Cherry")
        hand.drag(to: Point(x: 340, y: 565))
        #expect(hand.grid.outsideTargetStates() == [OutsideTargetState(id: 7, isTargeted: true, operation: .copy)])
        hand.up(Point(x: 340, y: 565))
        #expect(!hand.grid.snapshot.contains(Fruit.id("Cherry")) && hand.grid.snapshot.itemCount == 11)
        #expect(hand.commits.map(\.kind) == [.delete])
        #expect(hand.commits[0].updates[0].itemDeletes == [IndexPath(item: 2, section: 0)])
        let first = hand.grid.visibleCells().first { $0.kind == .preview }!
        #expect(first.flags.contains(.vanishing) && first.scale == 1.2)
        hand.tick(0.2)
        let late = hand.grid.visibleCells().first { $0.kind == .preview }!
        #expect(late.scale < 0.1 && late.opacity < 0.1)
        #expect(late.frame.midX > 330 && late.frame.midY > 555)   // it flies into the can
        hand.settle()
        #expect(hand.grid.outsideTargetStates() == [OutsideTargetState(id: 7, isTargeted: false, operation: .cancel)])
    }

    @Test func externalDataOverTheTrashIsForbiddenAndChangesNothing() {
        var grid = Fruit.grid()
        grid.outsideTargets = [TrashAndPolicyTests.trash]
        var hand = Hand(grid)
        hand.send(.externalDragEnter(items: [[.url, .image]], location: Point(x: 200, y: 100), time: 0))
        hand.send(.externalDragMove(location: Point(x: 320, y: 560), modifiers: [], time: 0.1))
        #expect(hand.grid.outsideTargetStates()[0] == OutsideTargetState(id: 7, isTargeted: true, operation: .forbidden))
        hand.send(.externalDrop(location: Point(x: 320, y: 560), time: 0.2))
        #expect(hand.commits.isEmpty && hand.grid.placeholders.isEmpty && hand.grid.session == nil)
        #expect(hand.effects.last == .dragEnded(operation: .forbidden, items: []))
    }

    @Test func externalItemsAreAcceptedOnlyWithBothURLAndImage() {
        var policy = DropPolicy()
        policy.acceptedExternal = [[.url, .image]]
        var hand = Hand(Fruit.grid(policy: policy))
        hand.send(.externalDragEnter(items: [[.url]], location: hand.centre("Apple"), time: 0))
        #expect(hand.grid.session?.proposal.operation == .forbidden)
        hand.send(.externalDrop(location: hand.centre("Apple"), time: 0.1))
        #expect(hand.grid.placeholders.isEmpty)
        hand.send(.externalDragEnter(items: [[.url], [.url, .image]], location: hand.centre("Apple"), time: 1))
        #expect(hand.grid.session?.proposal == DropProposal(operation: .copy, intent: .insertAtDestinationIndexPath,
                                                            target: .insert(at: IndexPath(item: 0, section: 0))))
        hand.send(.externalDrop(location: hand.centre("Apple"), time: 1.1))
        #expect(hand.grid.placeholders.map(\.dropItemIndex) == [1])
        #expect(hand.grid.indexPath(of: hand.grid.placeholders[0].id) == IndexPath(item: 0, section: 0))
    }

    @Test func aReadOnlyGalleryForbidsEveryDrop() {
        var hand = Hand(Fruit.grid(policy: DropPolicy(isReadOnly: true)))
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Sheep"))
        #expect(hand.grid.session?.proposal.operation == .forbidden)
        #expect(Fruit.names(hand.grid.displayedSnapshot) == [Fruit.names])    // nothing shifts
        #expect(hand.grid.visibleCells().first { $0.kind == .preview }!.flags.contains(.forbidden))
        hand.up(hand.centre("Sheep"))
        hand.settle()
        #expect(hand.commits.isEmpty && hand.names == [Fruit.names])
        #expect(hand.effects.last == .dragEnded(operation: .forbidden, items: [Fruit.id("Banana")]))
    }

    @Test func aReadOnlyItemCannotMoveNorBeSwappedWithButCanBeCopied() {
        var grid = Fruit.grid(interaction: ReorderTests.swapMode)
        grid.setReadOnly(true, item: Fruit.id("Date"))
        var hand = Hand(grid)
        hand.longPress("Banana")
        hand.drag(to: hand.centre("Date"))
        #expect(hand.grid.session?.proposal.operation == .forbidden)
        hand.up(hand.centre("Date"))
        hand.settle()
        hand.longPress("Date")
        hand.drag(to: hand.centre("Apple"))
        #expect(hand.grid.session?.proposal.operation == .forbidden)
        hand.modifiers = [.option]
        hand.move(hand.centre("Apple"))
        #expect(hand.grid.session?.proposal.operation == .copy)
        hand.up(hand.centre("Apple"))
        #expect(hand.commits.map(\.kind) == [.copy])
        #expect(hand.grid.snapshot.indexPath(of: Fruit.id("Date")) == IndexPath(item: 4, section: 0))
    }

    @Test func thePolicyMapsDestinationsToOperationsAndIntents() {
        let policy = DropPolicy()
        let at = IndexPath(item: 2, section: 0)
        #expect(policy.proposal(for: .insert(at: at), isLocal: true) == DropProposal(operation: .move, intent: .insertAtDestinationIndexPath, target: .insert(at: at)))
        #expect(policy.proposal(for: .insert(at: at), isLocal: true, modifiers: [.option]).operation == .copy)
        #expect(policy.proposal(for: .insert(at: at), isLocal: false, acceptedExternalCount: 1).operation == .copy)
        #expect(policy.proposal(for: .insert(at: at), isLocal: false, acceptedExternalCount: 0).operation == .forbidden)
        #expect(policy.proposal(for: .gapCell(section: 1), isLocal: true).intent == .insertIntoDestinationIndexPath)
        #expect(policy.proposal(for: .offscreen, isLocal: true).operation == .cancel)
        var noCopies = policy
        noCopies.allowsCopies = false
        #expect(noCopies.proposal(for: .insert(at: at), isLocal: true, modifiers: [.option]).operation == .move)
    }
}
