// engine-cli: the native side of the engine bridge.
//   engine-cli                         a small demo: the seed's twelve items in a grid, then a diff
//   engine-cli replay CALLS OUT        runs a recorded call file, writes every answer (parity test)
//   engine-cli bench CALLS REPEAT      times each call of a call file, median of REPEAT runs (ns)
// Call file: little-endian Float64 records [op, n, n values]; answer file: [n, n values] per call.
import EngineBridge
import Foundation
import GridEngine

func readCalls(_ path: String) -> [(op: Int32, input: [Double])] {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write("cannot read \(path)\n".data(using: .utf8)!)
        exit(2)
    }
    let values: [Double] = data.withUnsafeBytes { raw in
        (0..<(data.count / 8)).map { Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))) }
    }
    var calls: [(Int32, [Double])] = []
    var i = 0
    while i + 1 < values.count {
        let op = Int32(values[i]), n = Int(values[i + 1])
        calls.append((op, Array(values[(i + 2)..<(i + 2 + n)])))
        i += 2 + n
    }
    return calls
}

func demo() {
    let titles = ["Apple", "Banana", "Cherry", "Date", "Dragon", "Sheep", "V-Malicious", "X-Code",
                  "GreatWall", "TaiTan", "Milk", "🥸"]
    let aspects: [Double] = [1, 1.5, 0.75, 1, 1.33, 0.66, 1, 1.77, 2, 0.8, 1, 1]
    let config = LayoutConfiguration(kind: .waterfall(columns: 3), containerWidth: 390, headerHeight: 0,
                                     sectionInsets: EdgeInsets(all: 8), itemSpacing: 4, lineSpacing: 4)
    let layout = CollectionLayout(configuration: config, aspects: [aspects])
    print("engine-cli, bridge protocol \(engineBridgeVersion): waterfall of 3 columns, 390 pt wide")
    for (i, title) in titles.enumerated() {
        let f = layout.frame(of: IndexPath(item: i, section: 0))!
        print("  \(title.padding(toLength: 12, withPad: " ", startingAt: 0)) x \(Int(f.minX)) y \(Int(f.minY)) \(Int(f.width))×\(Int(f.height))")
    }
    let ids = titles.indices.map { ItemID(UInt64($0 + 1)) }
    let before = try! Snapshot([(SectionID(1), ids)])
    var afterIDs = ids
    afterIDs.swapAt(1, 3) // drag Banana onto Date in swap mode
    let after = try! Snapshot([(SectionID(1), afterIDs)])
    let changes = try! StagedChangeset(from: before, to: after)
    print("swap Banana and Date: \(changes.stages.count) stage(s), moves \(changes.stages.first?.itemMoves.map { "\($0.from.item)→\($0.to.item)" } ?? [])")
}

let args = CommandLine.arguments
switch args.count > 1 ? args[1] : "" {
case "replay" where args.count == 4:
    var bridge = EngineBridge()
    var out: [Double] = []
    var bytes = Data()
    for call in readCalls(args[2]) {
        call.input.withUnsafeBufferPointer { bridge.call(rawOp: call.op, $0, into: &out) }
        for v in [Double(out.count)] + out { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    }
    guard FileManager.default.createFile(atPath: args[3], contents: bytes) else {
        FileHandle.standardError.write("cannot write \(args[3])\n".data(using: .utf8)!)
        exit(2)
    }
case "bench" where args.count == 4:
    let repeats = max(1, Int(args[3]) ?? 5)
    var bridge = EngineBridge()
    var out: [Double] = []
    for call in readCalls(args[2]) {
        var times: [UInt64] = []
        // Creating and destroying hand out or retire handles: run those once.
        let once = call.op == BridgeOp.layoutCreate.rawValue || call.op == BridgeOp.layoutDestroy.rawValue
        for _ in 0..<(once ? 1 : repeats) {
            let t0 = DispatchTime.now().uptimeNanoseconds
            call.input.withUnsafeBufferPointer { bridge.call(rawOp: call.op, $0, into: &out) }
            times.append(DispatchTime.now().uptimeNanoseconds - t0)
        }
        times.sort()
        print("\(call.op) \(times[times.count / 2])")
    }
default:
    demo()
}
