// grid-bench: release-mode benchmarks of GridEngine.
//   swift run -c release grid-bench [diff|moves|layout|interaction|all]
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "diff" || which == "all" { runDiffBenchmarks() }
if which == "moves" || which == "all" { runMoveBenchmarks() }
if which == "layout" || which == "all" { runLayoutBenchmarks() }
if which == "interaction" || which == "all" { runInteractionBenchmarks() }
