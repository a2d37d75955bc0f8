#!/usr/bin/env bash
# The one-section shuffle diff beside DifferenceKit, in one process (BENCHMARKS.md, "Diff").
#
# Builds a scratch Swift package OUTSIDE the repository (never part of Package.swift) that holds
# DifferenceKit 1.3.0 (a path dependency on a checkout of it) and this repository's GridEngine
# (its sources, linked in), release build, and times both on the same input: n Int ids
# 1,000,000 … in one section, shuffled by the first use of GridEngine's SeededGenerator(seed: n)
# — the permutation of `grid-bench diff`'s "random shuffle, one section" row (the digest printed
# by both says so). GridEngine: StagedChangeset(from:to:) on two Snapshots; DifferenceKit:
# StagedChangeset(source:target:) on the two [Int] arrays. Median of 11 runs after a warm-up
# (GridBench's harness, linked in too), wall clock and the thread's CPU time; each result is
# checked first (ours replays to the target, DifferenceKit's last stage is the target).
#
#   scripts/bench-differencekit.sh [SCRATCH_DIR]     (default: ${TMPDIR:-/tmp}/gallery-bench-differencekit)
#   DIFFERENCEKIT=/path/to/DifferenceKit scripts/bench-differencekit.sh   (a checkout instead of cloning)
#
# Needs git (to clone https://github.com/ra1028/DifferenceKit at tag 1.3.0) and the Swift toolchain.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=${1:-${TMPDIR:-/tmp}/gallery-bench-differencekit}
case "$scratch/" in "$repo"/*) echo "bench-differencekit: $scratch is inside the repository; name a folder outside it" >&2; exit 2 ;; esac
command -v swift >/dev/null || { echo "bench-differencekit: swift is missing (the Swift toolchain, as for the rest of the project)" >&2; exit 2; }
mkdir -p "$scratch/Bench"

dk=${DIFFERENCEKIT:-$scratch/DifferenceKit}
if [[ ! -f $dk/Sources/Algorithm.swift ]]; then
  [[ -z ${DIFFERENCEKIT:-} ]] || { echo "bench-differencekit: $dk is not a DifferenceKit checkout" >&2; exit 2; }
  command -v git >/dev/null || { echo "bench-differencekit: git is missing (apt-get install git)" >&2; exit 2; }
  git clone -q --depth 1 --branch 1.3.0 https://github.com/ra1028/DifferenceKit "$dk" 2>"$scratch/clone.log" || {
    echo "bench-differencekit: could not clone https://github.com/ra1028/DifferenceKit (log: $scratch/clone.log); DIFFERENCEKIT=DIR uses a checkout of tag 1.3.0" >&2
    exit 1
  }
fi

ln -sfn "$dk" "$scratch/DifferenceKit-dep"
ln -sfn "$repo/Sources/GridEngine" "$scratch/GridEngine"
ln -sfn "$repo/Sources/GridBench/Harness.swift" "$scratch/Bench/Harness.swift"
cat > "$scratch/Package.swift" <<'SWIFT'
// swift-tools-version:6.1
// Scratch package of scripts/bench-differencekit.sh: not part of the gallery's build.
import PackageDescription
let package = Package(
    name: "DiffBesideDifferenceKit",
    dependencies: [.package(name: "DifferenceKit", path: "DifferenceKit-dep")],
    targets: [
        .target(name: "GridEngine", path: "GridEngine"),
        .executableTarget(name: "dk-bench", dependencies: [
            "GridEngine", .product(name: "DifferenceKit", package: "DifferenceKit"),
        ], path: "Bench"),
    ]
)
SWIFT
cat > "$scratch/Bench/main.swift" <<'SWIFT'
import DifferenceKit
import GridEngine

extension Int: @retroactive Differentiable {}

#if canImport(Glibc)
import Glibc
#endif

/// Median CPU time of this thread per call (after one warm-up): on a machine shared with other
/// work the wall-clock median counts the time the thread waited for a core; this does not.
func cpuMedian(iterations: Int, _ body: () -> Void) -> Double {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
    }
    body()
    var samples: [Double] = []
    for _ in 0..<iterations {
        let t0 = now()
        body()
        samples.append(now() - t0)
    }
    return samples.sorted()[iterations / 2]
}

func digest(_ ids: [Int]) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for id in ids { h = (h ^ UInt64(id)) &* 0x100_0000_01b3 }
    let hex = String(h, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

print("| workload | items | GridEngine StagedChangeset: wall / thread CPU (medians) | moves | DifferenceKit StagedChangeset: wall / thread CPU (medians) | DifferenceKit moves | DifferenceKit / GridEngine (wall) | target order digest |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for n in [10_000, 100_000] {
    let source = (0..<n).map { 1_000_000 + $0 }
    var target = source
    var rng = SeededGenerator(seed: UInt64(n))
    target.shuffle(using: &rng)

    let s = try! Snapshot([(id: SectionID(1), items: source.map { ItemID(UInt64($0)) })])
    let t = try! Snapshot([(id: SectionID(1), items: target.map { ItemID(UInt64($0)) })])
    let ours = try! GridEngine.StagedChangeset(from: s, to: t)
    var shown = s
    for stage in ours.stages { shown = try! shown.applying(stage) }
    precondition(shown == t, "GridEngine's stages did not replay to the target")
    let theirs = DifferenceKit.StagedChangeset(source: source, target: target)
    precondition(theirs.last?.data == target, "DifferenceKit's last stage is not the target")
    let theirMoves = theirs.reduce(0) { $0 + $1.elementMoved.count }

    let iterations = 11
    let a = measure("GridEngine", iterations: iterations) { blackHole(try! GridEngine.StagedChangeset(from: s, to: t)) }
    let b = measure("DifferenceKit", iterations: iterations) { blackHole(DifferenceKit.StagedChangeset(source: source, target: target)) }
    let aCPU = cpuMedian(iterations: iterations) { blackHole(try! GridEngine.StagedChangeset(from: s, to: t)) }
    let bCPU = cpuMedian(iterations: iterations) { blackHole(DifferenceKit.StagedChangeset(source: source, target: target)) }
    printRow(["random shuffle, one section", "\(n)", formatNanos(a.medianNanos) + " / " + formatNanos(aCPU), "\(ours.moveCount)",
              formatNanos(b.medianNanos) + " / " + formatNanos(bCPU), "\(theirMoves)", format2(b.medianNanos / a.medianNanos) + "×",
              digest(target)])
}
SWIFT
cd "$scratch"
echo "building the scratch package in $scratch (release)"
if ! swift build -c release --product dk-bench >build.log 2>&1; then
  grep -E "error:" build.log | head -20 >&2
  echo "bench-differencekit: the scratch package did not build (log: $scratch/build.log)" >&2; exit 1
fi
.build/release/dk-bench
