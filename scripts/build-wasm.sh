#!/usr/bin/env bash
# Builds engine.wasm from the same GridEngine sources with the installed toolchain's
# Embedded Swift (wasm32-unknown-none-wasm), its clang and wasm-ld, and writes the page's
# protocol module (the bridge's codes, from Sources/EngineBridge/BridgeProtocol.swift) beside
# it. Output: .build-wasm/engine.wasm and .build-wasm/protocol.js (served at /js/protocol.js).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=.build-wasm
mkdir -p "$OUT"
SWIFTC=${SWIFTC:-swiftc}
BIN=$(dirname "$(command -v "$SWIFTC")")
CLANG=${CLANG:-$BIN/clang}
WASMLD=${WASMLD:-$BIN/wasm-ld}
FLAGS=(-target wasm32-unknown-none-wasm -enable-experimental-feature Embedded -wmo -O
       -Xfrontend -disable-stack-protector -Xcc -fdeclspec -parse-as-library)

"$SWIFTC" "${FLAGS[@]}" -module-name GridEngine -emit-module -emit-module-path "$OUT/GridEngine.swiftmodule" \
  -c -o "$OUT/GridEngine.o" $(find Sources/GridEngine -name '*.swift' | sort)
"$SWIFTC" "${FLAGS[@]}" -module-name EngineBridge -I "$OUT" -emit-module -emit-module-path "$OUT/EngineBridge.swiftmodule" \
  -c -o "$OUT/EngineBridge.o" $(find Sources/EngineBridge -name '*.swift' | sort)
"$SWIFTC" "${FLAGS[@]}" -module-name EngineWasm -I "$OUT" -c -o "$OUT/Exports.o" Wasm/Exports.swift
"$CLANG" --target=wasm32-unknown-none-wasm -O2 -mbulk-memory -nostdlib -ffreestanding -fno-builtin -c Wasm/runtime.c -o "$OUT/runtime.o"
"$WASMLD" --no-entry --strip-debug -z stack-size=1048576 --initial-memory=33554432 \
  "$OUT/GridEngine.o" "$OUT/EngineBridge.o" "$OUT/Exports.o" "$OUT/runtime.o" \
  --export=malloc --export=free -o "$OUT/engine.wasm"
# The protocol module: BridgeProtocol.swift compiled alone, natively, prints it.
"$SWIFTC" -parse-as-library Sources/EngineBridge/BridgeProtocol.swift scripts/protocol-module.swift -o "$OUT/protocol-module"
"$OUT/protocol-module" > "$OUT/protocol.js.tmp" && mv "$OUT/protocol.js.tmp" "$OUT/protocol.js"
echo "built $OUT/engine.wasm ($(wc -c < "$OUT/engine.wasm") bytes) and $OUT/protocol.js"
