import GRDB
import GalleryCore
