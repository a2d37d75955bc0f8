import Foundation
import Hummingbird

/// `/engine.wasm`, the page's protocol module `/js/protocol.js` and the page's modules bundled
/// with it, `/js/page.js` (what index.html loads), from the wasm build's output (the folder of
/// `--wasm`; scripts/build-wasm.sh writes all three, so the page always speaks the protocol of
/// the engine it gets); the rest of the page comes from `Web/` through the FileMiddleware
/// installed in `GalleryServer.router()`.
struct StaticRoutes {
    let server: GalleryServer

    func register(_ router: Router<GalleryRequestContext>) {
        router.get("engine.wasm") { _, _ in
            try built(server.configuration.wasmPath, contentType: "application/wasm")
        }
        for name in ["protocol.js", "page.js"] {
            router.get("js/\(name)") { _, _ in
                try built(server.configuration.wasmPath.deletingLastPathComponent().appendingPathComponent(name),
                          contentType: "text/javascript; charset=utf-8")
            }
        }
    }

    private func built(_ path: URL, contentType: String) throws -> Response {
        guard let data = FileManager.default.contents(atPath: path.path) else {
            throw APIError(.notFound, "\(path.lastPathComponent) not found at \(path.path) (build it with scripts/build-wasm.sh or pass --wasm)")
        }
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
