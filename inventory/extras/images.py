"""Uploaded images: what a file is, read from its own bytes (never from its name or the type a
client claims), and its size in pixels, read from its header.

Only PNG, JPEG, GIF and WebP are taken: formats a browser shows as images and never runs (an SVG
or HTML file is a document that may carry script, so it is refused whatever it is called). The
header is parsed here rather than by an imaging library: a few fixed offsets per format give the
size, the pixel data is never decoded, and the service needs no imaging dependency for it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from django.conf import settings
from django.db import models

# extension -> media type the file is served with (the extension is the detected format's)
MEDIA_TYPES = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
ACCEPTED = "PNG, JPEG, GIF or WebP"
LARGEST_SIDE = 32767  # stored in positive small integer columns, as the reference's
JPEG_SIZES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
JPEG_UNSIZED = {0x01, *range(0xD0, 0xD8)}  # markers without a length (TEM, restarts)


class NotAnImage(ValueError):
    """Why an upload is refused: the message is the client's."""


@dataclass(frozen=True)
class Image:
    extension: str
    width: int
    height: int


def identify(stream) -> Image:
    """The format and size of the image `stream` holds (a binary file, read from its start);
    NotAnImage when it is none of the accepted formats or its header is damaged."""
    stream.seek(0)
    head = stream.read(32)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        image = _png(head)
    elif head[:6] in (b"GIF87a", b"GIF89a"):
        image = _gif(head)
    elif head.startswith(b"\xff\xd8\xff"):
        image = _jpeg(stream)
    elif head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        image = _webp(head)
    else:
        raise NotAnImage(f"Upload a valid image: a {ACCEPTED} file. The file uploaded is not one.")
    if not (0 < image.width <= LARGEST_SIDE and 0 < image.height <= LARGEST_SIDE):
        raise NotAnImage(
            f"The image is {image.width} by {image.height} pixels: each side must be 1 to {LARGEST_SIDE}."
        )
    return image


def _damaged(kind: str) -> NotAnImage:
    return NotAnImage(f"Upload a valid image: the {kind} file's header is damaged.")


def _png(head: bytes) -> Image:
    # The first chunk is IHDR: length (13), type, width, height (big-endian).
    if len(head) < 24 or head[12:16] != b"IHDR":
        raise _damaged("PNG")
    width, height = struct.unpack(">II", head[16:24])
    return Image("png", width, height)


def _gif(head: bytes) -> Image:
    if len(head) < 10:
        raise _damaged("GIF")
    width, height = struct.unpack("<HH", head[6:10])  # the logical screen
    return Image("gif", width, height)


def _webp(head: bytes) -> Image:
    chunk, body = head[12:16], head[20:]
    if chunk == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":  # lossy: the key frame
        width, height = struct.unpack("<HH", body[6:10])
        return Image("webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:  # lossless: 14-bit sides less one
        bits = int.from_bytes(body[1:5], "little")
        return Image("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(body) >= 10:  # extended: the canvas, 24-bit sides less one
        return Image(
            "webp", int.from_bytes(body[4:7], "little") + 1, int.from_bytes(body[7:10], "little") + 1
        )
    raise _damaged("WebP")


def _jpeg(stream) -> Image:
    """The size in the first start-of-frame segment, found by walking the segments from the start
    of the file (each says its length), never by searching the data for a marker."""
    stream.seek(2)
    while True:
        marker = stream.read(2)
        while len(marker) == 2 and marker[0] == 0xFF and marker[1] == 0xFF:  # fill bytes
            marker = marker[1:] + stream.read(1)
        if len(marker) < 2 or marker[0] != 0xFF or marker[1] in (0xD8, 0xD9, 0xDA):
            raise _damaged("JPEG")  # no frame before the end, the scan, or a stray byte
        if marker[1] in JPEG_UNSIZED:
            continue
        length = stream.read(2)
        if len(length) < 2 or struct.unpack(">H", length)[0] < 2:
            raise _damaged("JPEG")
        size = struct.unpack(">H", length)[0] - 2
        if marker[1] in JPEG_SIZES:
            frame = stream.read(5)
            if len(frame) < 5:
                raise _damaged("JPEG")
            height, width = struct.unpack(">HH", frame[1:5])
            return Image("jpg", width, height)
        stream.seek(size, 1)


class ImageUploadField(models.FileField):
    """An uploaded image: a PNG, JPEG, GIF or WebP file of at most IMAGE_FILE_MAX_BYTES, stored
    under a name made of a random id and the detected format's extension, with its width and
    height in two other fields of the model (filled from the file, never written by clients)."""

    options_type = "image upload"  # as the reference's API describes an image field

    def __init__(self, *args, width_field: str | None = None, height_field: str | None = None, **kwargs):
        self.width_field, self.height_field = width_field, height_field
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs.update(
            {
                key: value
                for key, value in (("width_field", self.width_field), ("height_field", self.height_field))
                if value
            }
        )
        return name, path, args, kwargs

    def accept_upload(self, upload) -> tuple[str, dict]:
        """(extension, {field: value} derived from the file) of an uploaded file the field takes;
        NotAnImage saying why it takes none other."""
        largest = settings.IMAGE_FILE_MAX_BYTES
        if upload.size is not None and upload.size > largest:
            raise NotAnImage(
                f"The file is {upload.size} bytes; an image may have at most {largest} (IMAGE_FILE_MAX_BYTES)."
            )
        if not upload.size:
            raise NotAnImage("The submitted file is empty.")
        image = identify(upload)
        derived = {self.width_field: image.width, self.height_field: image.height}
        return image.extension, {name: value for name, value in derived.items() if name}

    @staticmethod
    def media_type(name: str) -> str:
        """The media type a stored file is served with, from the extension its format gave it."""
        return MEDIA_TYPES.get(name.rsplit(".", 1)[-1].lower(), "application/octet-stream")
