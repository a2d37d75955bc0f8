import GridEngine

func runLayoutBenchmarks() {
    print("layout benchmarks: not written yet")
}
