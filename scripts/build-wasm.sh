#!/usr/bin/env bash
# Builds engine.wasm from the same GridEngine sources with the installed toolchain's
# Embedded Swift (wasm32-unknown-none-wasm), its clang and wasm-ld, and writes the page's
# protocol module (the bridge's codes, from Sources/EngineBridge/BridgeProtocol.swift) beside
# it, and the page's modules bundled with it (scripts/bundle-page.py). Output:
# .build-wasm/engine.wasm, .build-wasm/protocol.js and .build-wasm/page.js (served at /js/...).
#
#   scripts/build-wasm.sh                  engine.wasm and protocol.js
#   scripts/build-wasm.sh --test-support   also engine-test.wasm: the same engine with its test
#                                          support (SeedReplay, digests) for the parity test
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=.build-wasm
mkdir -p "$OUT"
SWIFTC=${SWIFTC:-swiftc}
BIN=$(dirname "$(command -v "$SWIFTC")")
CLANG=${CLANG:-$BIN/clang}
WASMLD=${WASMLD:-$BIN/wasm-ld}
for tool in "$SWIFTC" "$CLANG" "$WASMLD"; do
  command -v "$tool" >/dev/null || { echo "build-wasm: $tool is missing: it comes with the Swift toolchain from swift.org (6.x, with Embedded Swift)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "build-wasm: python3 is missing (it bundles the page): install it with scripts/setup.sh" >&2; exit 2; }
FLAGS=(-target wasm32-unknown-none-wasm -enable-experimental-feature Embedded -wmo -O
       -Xfrontend -disable-stack-protector -Xcc -fdeclspec -parse-as-library)

"$CLANG" --target=wasm32-unknown-none-wasm -O2 -mbulk-memory -nostdlib -ffreestanding -fno-builtin -c Wasm/runtime.c -o "$OUT/runtime.o"

# build NAME [swiftc flags...]: $OUT/NAME.wasm, its objects in $OUT/NAME/
build() {
  local name=$1; shift
  local dir="$OUT/$name"
  mkdir -p "$dir"
  "$SWIFTC" "${FLAGS[@]}" "$@" -module-name GridEngine -emit-module -emit-module-path "$dir/GridEngine.swiftmodule" \
    -c -o "$dir/GridEngine.o" $(find Sources/GridEngine -name '*.swift' | sort)
  "$SWIFTC" "${FLAGS[@]}" "$@" -module-name EngineBridge -I "$dir" -emit-module -emit-module-path "$dir/EngineBridge.swiftmodule" \
    -c -o "$dir/EngineBridge.o" $(find Sources/EngineBridge -name '*.swift' | sort)
  "$SWIFTC" "${FLAGS[@]}" "$@" -module-name EngineWasm -I "$dir" -c -o "$dir/Exports.o" Wasm/Exports.swift
  "$WASMLD" --no-entry --strip-debug -z stack-size=1048576 --initial-memory=33554432 \
    "$dir/GridEngine.o" "$dir/EngineBridge.o" "$dir/Exports.o" "$OUT/runtime.o" \
    --export=malloc --export=free -o "$OUT/$name.wasm"
  echo "built $OUT/$name.wasm ($(wc -c < "$OUT/$name.wasm") bytes)"
}

if [[ "${1:-}" == "--test-support" ]]; then
  # Each build is one single-threaded swiftc -wmo (~2 min): the two side by side.
  build engine-test -D ENGINE_TEST_SUPPORT & test_support=$!
  build engine
  wait "$test_support"
else
  build engine
fi

# The protocol module: BridgeProtocol.swift compiled alone, natively, prints it.
"$SWIFTC" -parse-as-library Sources/EngineBridge/BridgeProtocol.swift scripts/protocol-module.swift -o "$OUT/protocol-module"
"$OUT/protocol-module" > "$OUT/protocol.js.tmp" && mv "$OUT/protocol.js.tmp" "$OUT/protocol.js"
echo "built $OUT/protocol.js"

# The page's modules, protocol.js among them, bundled into one script (served at /js/page.js).
python3 scripts/bundle-page.py Web/js "$OUT/protocol.js" "$OUT/page.js"
