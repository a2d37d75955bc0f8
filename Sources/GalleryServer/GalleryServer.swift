import Hummingbird
import GalleryStore
import Imaging
