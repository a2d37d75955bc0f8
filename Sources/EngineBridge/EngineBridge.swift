import GridEngine

/// The engine behind one flat command surface: the page calls it through engine.wasm,
/// the native `engine-cli` through the same code, so the two can be compared call by call.
///
///     var bridge = EngineBridge()
///     let created = bridge.call(.layoutCreate, [2, 3, 0, 390, 0, 0, 0, 0, 0, 4, 4, 0, 0.5])
///     let handle = created[1]
///
/// Layouts live in a handle table; handles are small integers handed out in order, so
/// two bridges fed the same calls hand out the same handles.
public struct EngineBridge {
    var _layouts: [CollectionLayout?] = []
    var _controllers: [GridController?] = []

    public init() {}

    /// Runs one operation. Never traps on bad input: a malformed or hostile buffer answers
    /// a negative status.
    public mutating func call(_ op: BridgeOp, _ input: UnsafeBufferPointer<Double>, into out: inout [Double]) {
        out.removeAll(keepingCapacity: true)
        out.append(0)
        var r = _BridgeReader(input)
        do throws(_BridgeFailure) {
            switch op {
            case .version: out.append(Double(engineBridgeVersion))
            case .layoutCreate: try _layoutCreate(&r, &out)
            case .layoutPrepare: try _layoutPrepare(&r, &out)
            case .layoutFrames: try _layoutFrames(&r, &out)
            case .layoutAttributes: try _layoutAttributes(&r, &out)
            case .layoutHitTest: try _layoutHitTest(&r, &out)
            case .layoutDropDestination: try _layoutDropDestination(&r, &out)
            case .layoutMoveItem: try _layoutMoveItem(&r)
            case .layoutInsertItem: try _layoutInsertItem(&r)
            case .layoutDeleteItem: try _layoutDeleteItem(&r)
            case .layoutReconfigure: try _layoutReconfigure(&r, &out)
            case .layoutSetGapCells: try _layoutSetGapCells(&r, &out)
            case .layoutDestroy: try _layoutDestroy(&r)
            case .diff: try _diff(&r, &out)
            case .snapshotApply: try _snapshotApply(&r, &out)
            case .controllerCreate: try _controllerCreate(&r, &out)
            case .controllerConfigure: try _controllerConfigure(&r, &out)
            case .controllerEvent: try _controllerEvent(&r, &out)
            case .controllerTick: try _controllerTick(&r, &out)
            case .controllerRender: try _controllerRender(&r, &out)
            case .controllerLiveSnapshot: try _controllerLiveSnapshot(&r, &out)
            case .controllerCommitInsertion: try _controllerCommitInsertion(&r, &out)
            case .controllerDeletePlaceholder: try _controllerDeletePlaceholder(&r, &out)
            case .controllerHistory: try _controllerHistory(&r, &out)
            case .controllerAddToDrag: try _controllerAddToDrag(&r, &out)
            case .controllerCancel: try _controllerCancel(&r, &out)
            case .controllerScrollTarget: try _controllerScrollTarget(&r, &out)
            case .controllerFocus: try _controllerFocus(&r)
            case .controllerSnapshot: try _controllerSnapshot(&r, &out)
            case .controllerOutsideTargets: try _controllerOutsideTargets(&r)
            case .controllerTitles: try _controllerTitles(&r)
            case .controllerPinch: try _controllerPinch(&r, &out)
            case .controllerDestroy: try _controllerDestroy(&r)
            case .controllerPaste: try _controllerPaste(&r, &out)
            case .controllerPlaceholderDestination: try _controllerPlaceholderDestination(&r, &out)
            case .seedReplay:
                #if ENGINE_TEST_SUPPORT
                Self._seedReplay(&out)
                #else
                throw _BridgeFailure(.unknownOperation)
                #endif
            case .controllerLiveChanges: try _controllerLiveChanges(&r, &out)
            case .controllerModelMatches: try _controllerModelMatches(&r, &out)
            case .controllerReadOnly: try _controllerReadOnly(&r, &out)
            case .controllerArrange: try _controllerArrange(&r, &out)
            case .controllerPageStep: try _controllerPageStep(&r, &out)
            case .controllerMoveItems: try _controllerMoveItems(&r, &out)
            case .controllerTrashItems: try _controllerTrashItems(&r, &out)
            case .controllerSectionEdit: try _controllerSectionEdit(&r, &out)
            case .controllerSectionDropIndex: try _controllerSectionDropIndex(&r, &out)
            case .controllerHistoryExport: try _controllerHistoryExport(&r, &out)
            case .controllerHistoryImport: try _controllerHistoryImport(&r, &out)
            case .controllerEdgeScroll: try _controllerEdgeScroll(&r, &out)
            case .controllerLiveReplaceBegin: try _controllerLiveReplaceBegin(&r, &out)
            case .controllerLiveReplaceAppend: try _controllerLiveReplaceAppend(&r, &out)
            case .controllerLiveReplaceFinish: try _controllerLiveReplaceFinish(&r, &out)
            }
        } catch {
            out.removeAll(keepingCapacity: true)
            out.append(Double(error.status.rawValue))
            out.append(contentsOf: error.detail)
        }
    }

    /// Convenience for tests and the command line.
    public mutating func call(_ op: BridgeOp, _ input: [Double]) -> [Double] {
        var out: [Double] = []
        input.withUnsafeBufferPointer { call(op, $0, into: &out) }
        return out
    }

    /// Runs an operation given by its raw code (what the C ABI passes).
    public mutating func call(rawOp: Int32, _ input: UnsafeBufferPointer<Double>, into out: inout [Double]) {
        guard let op = BridgeOp(rawValue: rawOp) else {
            out.removeAll(keepingCapacity: true)
            out.append(Double(BridgeStatus.unknownOperation.rawValue))
            return
        }
        call(op, input, into: &out)
    }
}
