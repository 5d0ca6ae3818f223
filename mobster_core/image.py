"""A small image toolkit on the standard library: RGB rasters, PNG in and out, thumbnails, outlines.

For a driver that draws its screens (the scripted phone) or converts a device's screenshots, and
for reports. Pictures never decide anything: the verdict is the accessibility tree's.
"""

from ._rules.image import MAX_PIXELS, RGB, PngError, Raster, decode_png, encode_png, frame_box

__all__ = ["MAX_PIXELS", "RGB", "PngError", "Raster", "decode_png", "encode_png", "frame_box"]
