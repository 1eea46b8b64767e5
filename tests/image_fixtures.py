"""Image files made for the image tests with Pillow (and by hand where Pillow writes no such file):
every colour mode Pillow opens, EXIF orientations and metadata, animations, and hostile files."""

import io
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from PIL import Image

SIZE = (1200, 630)  # the library's minimum (home.image_uploads.sizes.LIBRARY_MIN_SIZE)


def encode(image: Image.Image, image_format: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, image_format, **options)
    return buffer.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_16_bit(size: tuple[int, int], colour_type: int, samples: tuple[int, ...]) -> bytes:
    """A uniform 16-bit PNG (PNG spec 11.2.2: colour type 0 grey, 2 RGB, 4 grey+alpha, 6 RGBA),
    every pixel ``samples`` (0-65535 each). Pillow writes 16-bit grey only, so this is by hand."""
    width, height = size
    row = b"\x00" + struct.pack(f">{len(samples)}H", *samples) * width  # filter type 0
    header = struct.pack(">IIBBBBB", width, height, 16, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(row * height))
        + _png_chunk(b"IEND", b"")
    )


def png_with_size_in_header(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb's header)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + _png_chunk(b"IEND", b"")
    )


def gif_with_size_in_header(width: int, height: int) -> bytes:
    """A small GIF whose logical screen (GIF89a, bytes 6-9) claims ``width`` x ``height``."""
    data = bytearray(encode(Image.new("P", (16, 16), 1), "GIF"))
    data[6:10] = struct.pack("<HH", width, height)
    return bytes(data)


def srgb_to_lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """CIELAB (D50, the ICC profile connection space) of an sRGB colour (0-255 each): IEC 61966-2-1
    linearisation, the Bradford-adapted sRGB-to-XYZ(D50) matrix, CIE 15 Lab."""
    linear = [(c / 255 / 12.92) if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    matrix = ((0.4360747, 0.3850649, 0.1430804), (0.2225045, 0.7168786, 0.0606169), (0.0139322, 0.0971045, 0.7141733))
    x, y, z = (sum(m * c for m, c in zip(row, linear, strict=True)) for row in matrix)
    white = (0.9642, 1.0, 0.8249)

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip((x, y, z), white, strict=True))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def muted_press_rgb(cmyk: tuple[int, int, int, int]) -> tuple[float, float, float]:
    """The sRGB colour our test profile gives a CMYK corner: Pillow's plain conversion squeezed
    into 40-231, like paper and ink that are neither pure white nor fully saturated."""
    c, m, y, k = (v / 255 for v in cmyk)
    plain = (255 * (1 - c) * (1 - k), 255 * (1 - m) * (1 - k), 255 * (1 - y) * (1 - k))
    return tuple(40 + 0.75 * v for v in plain)


def cmyk_icc_profile() -> bytes:
    """A minimal ICC v2 output profile for CMYK (ICC.1:2001-04): header, ``desc``, ``wtpt`` and an
    ``A2B0`` lut16Type with a 2-point grid per ink to Lab, its corners from ``muted_press_rgb``.
    No CMYK profile ships with Pillow or Debian's base system, so the tests build one."""
    grid = []
    for c in (0, 255):
        for m in (0, 255):
            for y in (0, 255):
                for k in (0, 255):
                    lightness, a, b = srgb_to_lab(muted_press_rgb((c, m, y, k)))
                    # lut16 Lab (ICC v2 legacy encoding): L 0-100 -> 0-65280, a/b -128..127.996 -> 0-65535.
                    grid += [round(lightness / 100 * 65280), round((a + 128) * 256), round((b + 128) * 256)]
    identity = [65536, 0, 0, 0, 65536, 0, 0, 0, 65536]  # s15Fixed16 matrix, unused with Lab PCS
    a2b0 = (
        b"mft2\x00\x00\x00\x00"
        + struct.pack(">BBBB", 4, 3, 2, 0)
        + struct.pack(">9i", *identity)
        + struct.pack(">HH", 2, 2)
        + struct.pack(">8H", *([0, 65535] * 4))
        + struct.pack(f">{len(grid)}H", *grid)
        + struct.pack(">6H", *([0, 65535] * 3))
    )
    text = b"Test muted press\x00"
    desc = (
        b"desc\x00\x00\x00\x00"
        + struct.pack(">I", len(text))
        + text
        + b"\x00" * 4
        + b"\x00" * 4
        + b"\x00" * 3
        + b"\x00" * 67
    )
    d50 = struct.pack(">3i", *(round(v * 65536) for v in (0.9642, 1.0, 0.8249)))
    wtpt = b"XYZ \x00\x00\x00\x00" + d50
    tags = [(b"desc", desc), (b"wtpt", wtpt), (b"A2B0", a2b0)]
    offset = 128 + 4 + 12 * len(tags)
    table, body = b"", b""
    for signature, data in tags:
        padded = data + b"\x00" * (-len(data) % 4)
        table += signature + struct.pack(">II", offset + len(body), len(data))
        body += padded
    size = offset + len(body)
    header = (
        struct.pack(">I", size)
        + b"lcms"
        + struct.pack(">I", 0x02100000)
        + b"prtrCMYKLab "
        + b"\x00" * 12
        + b"acsp"
        + b"\x00" * 24
        + struct.pack(">I", 0)  # perceptual
        + d50
        + b"\x00" * 48
    )
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + body


def admin_upload(client, name: str, content: bytes):
    """POST the admin's "Add an image" form; return (response, the file field's errors as one string)."""
    response = client.post(
        reverse("wagtailimages:add"),
        {"title": name, "file": SimpleUploadedFile(name, content), "description": "test image"},
    )
    errors = response.context["form"].errors.get("file", []) if response.status_code == 200 else []
    return response, " ".join(errors)
