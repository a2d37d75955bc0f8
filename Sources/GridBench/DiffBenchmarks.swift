import GridEngine

func runDiffBenchmarks() {
    print("diff benchmarks: not written yet")
}
