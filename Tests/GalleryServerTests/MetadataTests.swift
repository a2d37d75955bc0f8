import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import HTTPTypes
import GalleryCore
import GalleryServer
import GalleryStore
import Imaging

/// The detail view's metadata (issue 12): capture date with its offset, camera, lens, exposure,
/// size; the location only for members and links that show metadata.
@Suite struct MetadataTests {
    /// A real JPEG with EXIF written by exiftool, as a camera would (a Canon at the Eiffel Tower).
    static func cameraJPEG() throws -> [UInt8] {
        let jpeg = try SampleImages.jpeg(width: 600, height: 400, red: 200, green: 170, blue: 90, title: "")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("camera-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(jpeg).write(to: url)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS R6", "-LensModel=RF24-105mm F4 L IS USM",
                       "-ExposureTime=1/125", "-FNumber=5.6", "-ISO=400", "-FocalLength=50", "-DateTimeOriginal=2024:06:01 18:30:05",
                       "-OffsetTimeOriginal=+02:00", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", url.path]
        try p.run()
        p.waitUntilExit()
        return [UInt8](try Data(contentsOf: url))
    }

    @Test func exifIsReadAtIngestAndTheLocationIsShownOnlyWhereAllowed() async throws {
        let f = try await AccessFixture.make()
        let photo = try Self.cameraJPEG()
        let owner = f.headers[.owner]! + [HTTPField(name: .origin, value: "http://localhost")]
        // The fixture's server ran once (its ingestion has stopped): a new one on the same folder.
        let server = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        try await server.application().test(.router) { client in
            let up = try await client.execute(uri: "/api/galleries/\(f.gallery)/uploads", method: .post,
                                              headers: owner + [HTTPField(name: .contentType, value: "multipart/form-data; boundary=gallery-test-boundary")],
                                              body: multipart([("IMG_1234.JPG", photo)]))
            #expect(up.status == .created)
            let id = try JSONDecoder().decode(CreatedItems.self, from: Data(up.body.readableBytesView)).items[0].id
            let deadline = ContinuousClock.now + .seconds(20)
            var item: ItemJSON
            repeat {
                try await Task.sleep(for: .milliseconds(50))
                let r = try await client.execute(uri: "/api/items/\(id)", method: .get, headers: owner)
                item = try JSONDecoder().decode(ItemJSON.self, from: Data(r.body.readableBytesView))
            } while item.state == .pending && ContinuousClock.now < deadline
            #expect(item.state == .ready)
            #expect(server.store.files.exists(item.fileHash!, "meta.json"), "kept beside the thumbnails at ingest")

            func metadata(_ headers: HTTPFields) async throws -> MetadataAnswer {
                let r = try await client.execute(uri: "/api/items/\(id)/metadata", method: .get, headers: headers)
                #expect(r.status == .ok, "\(String(buffer: r.body))")
                return try JSONDecoder().decode(MetadataAnswer.self, from: Data(r.body.readableBytesView))
            }
            let full = try await metadata(f.headers[.viewer]!)
            #expect(full.exif && full.captured == "2024-06-01T18:30:05+02:00" && full.camera == "Canon EOS R6")
            #expect(full.lens == "RF24-105mm F4 L IS USM" && full.exposure == "1/125 s" && full.aperture == "f/5.6")
            #expect(full.iso == 400 && full.focalLength == "50 mm" && full.width == 600 && full.height == 400 && full.fileSize == photo.count)
            #expect(abs((full.latitude ?? 0) - 48.8584) < 1e-4 && abs((full.longitude ?? 0) - 2.2945) < 1e-4)
            // A link that shows metadata: everything. One that hides it: the size only.
            let shown = try await metadata(f.headers[.linkViewer]!)
            #expect(shown.exif && shown.camera == "Canon EOS R6" && shown.latitude != nil)
            let hidden = try await metadata(f.headers[.linkEditor]!)
            #expect(!hidden.exif && hidden.camera == nil && hidden.captured == nil && hidden.latitude == nil && hidden.longitude == nil)
            #expect(hidden.width == 600 && hidden.fileSize == photo.count)
            // The thumbnails carry no EXIF at all (no location inside a grid image).
            let grid = try await client.execute(uri: item.thumbnails!.grid, method: .get, headers: f.headers[.linkEditor]!)
            #expect(PhotoMetadata.read(Array(grid.body.readableBytesView)).isEmpty)
            #expect(try ImageProbe.probe(Array(grid.body.readableBytesView)).width == 400)
        }
    }

    @Test func aPhotoWithoutExifHasOnlyItsSize() async throws {
        let plain = try SampleImages.jpeg(width: 300, height: 200, red: 10, green: 10, blue: 200, title: "")
        let m = PhotoMetadata.read(plain)
        #expect(m.isEmpty)
        #expect(PhotoMetadata.read(Array("not an image".utf8)).isEmpty)
    }
}

struct MetadataAnswer: Decodable {
    var width: Int?
    var height: Int?
    var fileSize: Int?
    var captured: String?
    var camera: String?
    var lens: String?
    var exposure: String?
    var aperture: String?
    var iso: Int?
    var focalLength: String?
    var latitude: Double?
    var longitude: Double?
    var exif: Bool
}
