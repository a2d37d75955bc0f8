import Foundation
import Hummingbird

/// `/engine.wasm` from the wasm build's output (path set by `--wasm`); the page itself comes
/// from `Web/` through the FileMiddleware installed in `GalleryServer.router()`.
struct StaticRoutes {
    let server: GalleryServer

    func register(_ router: Router<GalleryRequestContext>) {
        router.get("engine.wasm") { _, _ in
            let path = server.configuration.wasmPath
            guard let data = FileManager.default.contents(atPath: path.path) else {
                throw APIError(.notFound, "engine.wasm not found at \(path.path) (build it with scripts/build-wasm.sh or pass --wasm)")
            }
            return Response(status: .ok, headers: [.contentType: "application/wasm", .cacheControl: "no-cache"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }
}
