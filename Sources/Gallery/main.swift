import GalleryServer
print("gallery")
