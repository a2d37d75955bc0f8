// grid-bench: release-mode benchmarks of GridEngine.
//   swift run -c release grid-bench [diff|layout|interaction|all]
let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "diff" || which == "all" { runDiffBenchmarks() }
if which == "layout" || which == "all" { runLayoutBenchmarks() }
if which == "interaction" || which == "all" { runInteractionBenchmarks() }
