import GridEngine

// The engine's types to and from the wire codes of BridgeProtocol.swift. Every switch here is
// exhaustive, so a new case on either side fails to compile until it has its code.

extension BridgePointerKind {
    var engineValue: PointerKind {
        switch self {
        case .mouse: .mouse
        case .touch: .touch
        case .pen: .pen
        }
    }
}

extension BridgeKey {
    var engineValue: Key {
        switch self {
        case .space: .space
        case .enter: .enter
        case .escape: .escape
        case .up: .up
        case .down: .down
        case .left: .left
        case .right: .right
        case .tab: .tab
        }
    }
}

extension BridgeModifier {
    var engineValue: KeyModifiers {
        switch self {
        case .shift: .shift
        case .control: .control
        case .option: .option
        case .command: .command
        }
    }

    /// The modifiers whose bits are set in `bits`; other bits are ignored.
    static func modifiers(_ bits: Int) -> KeyModifiers {
        var set: KeyModifiers = []
        for m in allCases where bits & m.rawValue != 0 { set.insert(m.engineValue) }
        return set
    }
}

extension BridgeDropData {
    var engineValue: DropDataKinds {
        switch self {
        case .ownItems: .ownItems
        case .url: .url
        case .file: .file
        case .image: .image
        case .text: .text
        }
    }

    static func kinds(_ bits: Int) -> DropDataKinds {
        var set: DropDataKinds = []
        for k in allCases where bits & k.rawValue != 0 { set.insert(k.engineValue) }
        return set
    }

    static func bits(_ kinds: DropDataKinds) -> Int {
        var bits = 0
        for k in allCases where kinds.contains(k.engineValue) { bits |= k.rawValue }
        return bits
    }
}

extension BridgeReorderMode {
    var engineValue: ReorderMode {
        switch self {
        case .insert: .insert
        case .swap: .swap
        }
    }
}

extension BridgeCadence {
    var engineValue: ReorderCadence {
        switch self {
        case .immediate: .immediate
        case .fast: .fast
        case .slow: .slow
        }
    }
}

extension BridgeSnapping {
    var engineValue: ScrollSnapping {
        switch self {
        case .none: .none
        case .paging: .paging
        case .viewAlignedAlways: .viewAligned(.always)
        case .viewAlignedNever: .viewAligned(.never)
        case .viewAlignedAutomatic: .viewAligned(.automatic)
        case .edges: .edges
        }
    }
}

extension BridgeCommitKind {
    init(_ kind: CommitKind) {
        switch kind {
        case .move: self = .move
        case .swap: self = .swap
        case .copy: self = .copy
        case .delete: self = .delete
        case .insertPlaceholders: self = .insertPlaceholders
        case .commitPlaceholder: self = .commitPlaceholder
        case .deletePlaceholder: self = .deletePlaceholder
        case .undo: self = .undo
        case .redo: self = .redo
        case .liveUpdate: self = .liveUpdate
        case .addSection: self = .addSection
        case .moveSection: self = .moveSection
        case .deleteSection: self = .deleteSection
        }
    }

    var engineValue: CommitKind {
        switch self {
        case .move: .move
        case .swap: .swap
        case .copy: .copy
        case .delete: .delete
        case .insertPlaceholders: .insertPlaceholders
        case .commitPlaceholder: .commitPlaceholder
        case .deletePlaceholder: .deletePlaceholder
        case .undo: .undo
        case .redo: .redo
        case .liveUpdate: .liveUpdate
        case .addSection: .addSection
        case .moveSection: .moveSection
        case .deleteSection: .deleteSection
        }
    }
}

extension BridgeDropOperation {
    init(_ operation: DropOperation) {
        switch operation {
        case .cancel: self = .cancel
        case .forbidden: self = .forbidden
        case .copy: self = .copy
        case .move: self = .move
        }
    }

    var engineValue: DropOperation {
        switch self {
        case .cancel: .cancel
        case .forbidden: .forbidden
        case .copy: .copy
        case .move: .move
        }
    }
}

extension BridgeDropIntent {
    init(_ intent: DropIntent) {
        switch intent {
        case .unspecified: self = .unspecified
        case .insertAtDestinationIndexPath: self = .insertAtDestinationIndexPath
        case .insertIntoDestinationIndexPath: self = .insertIntoDestinationIndexPath
        }
    }
}

extension BridgePhase {
    init(_ phase: DragPhase) {
        switch phase {
        case .idle: self = .idle
        case .pending: self = .pending
        case .lifted: self = .lifted
        case .dragging: self = .dragging
        case .dropping: self = .dropping
        case .settling: self = .settling
        }
    }
}

extension BridgeCellKind {
    init(_ kind: RenderedCellKind) {
        switch kind {
        case .item: self = .item
        case .header: self = .header
        case .gapCell: self = .gap
        case .placeholder: self = .placeholder
        case .preview: self = .preview
        }
    }
}

extension BridgeCellFlag {
    var engineValue: RenderedCellFlags {
        switch self {
        case .lifted: .lifted
        case .liftedSource: .liftedSource
        case .hoveredTarget: .hoveredTarget
        case .dropTarget: .dropTarget
        case .tinted: .tinted
        case .focused: .focused
        case .vanishing: .vanishing
        case .forbidden: .forbidden
        }
    }

    static func bits(_ flags: RenderedCellFlags) -> Int {
        if flags.isEmpty { return 0 }
        var bits = 0
        for f in allCases where flags.contains(f.engineValue) { bits |= f.rawValue }
        return bits
    }
}
