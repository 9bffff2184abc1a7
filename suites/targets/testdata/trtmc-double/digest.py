"""The contract double's TRTMC media digest (a test double: see README.md beside it).

TRTMC's perf-serving app records each generated image as a digest instead of the image
(apps/perf_serving/trtmc_perf_serving/digests.py, image_digest): {"frames", "height", "width",
"sampled_frames", "thumbnail_size": 64, "thumbnails": [64*64*3 uint8 values, HWC, flattened]},
the thumbnail being PIL's Image.resize((64, 64), Image.BILINEAR) of the frame in RGB. The server
image of the double has no Pillow, so this is the same arithmetic in the standard library: a PNG
reader (8-bit gray/RGB/RGBA, the five filters) and Pillow's fixed-point two-pass resampler
(libImaging/Resample.c). The harness recomputes the thumbnail from the kept artifact
(harness/mediadigest, checked against Pillow itself) and requires every value equal.
"""
import math
import struct
import zlib

THUMBNAIL = 64
PRECISION_BITS = 32 - 8 - 2


def read_png_rgb(data):
    """(width, height, RGB bytes) of an 8-bit non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or ctype not in (0, 2, 4, 6):
                raise ValueError(f"PNG depth {depth} color type {ctype} interlace {interlace} not read by the double")
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    rgb = bytearray()
    for line in rows:
        for x in range(width):
            px = line[x * channels:(x + 1) * channels]
            rgb += bytes((px[0], px[0], px[0])) if channels < 3 else bytes(px[:3])
    return width, height, rgb


def _coeffs(size_in, size_out):
    scale = size_in / size_out
    filterscale = max(scale, 1.0)
    support = filterscale
    out = []
    for xx in range(size_out):
        center = (xx + 0.5) * scale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), size_in) - xmin
        weights = [max(0.0, 1.0 - abs((x + xmin - center + 0.5) / filterscale)) for x in range(xmax)]
        total = sum(weights)
        fixed = []
        for w in weights:
            w = w / total if total != 0 else w
            fixed.append(int(-0.5 + w * (1 << PRECISION_BITS)) if w < 0 else int(0.5 + w * (1 << PRECISION_BITS)))
        out.append((xmin, fixed))
    return out


def _clip8(v):
    return 255 if v >= (1 << PRECISION_BITS << 8) else 0 if v <= 0 else v >> PRECISION_BITS


def resize(rgb, w, h, ow, oh):
    """Pillow's BILINEAR resize of RGB bytes, horizontal pass first."""
    half = 1 << (PRECISION_BITS - 1)
    if ow != w:
        tmp, cols = bytearray(h * ow * 3), _coeffs(w, ow)
        for y in range(h):
            for x, (lo, k) in enumerate(cols):
                for c in range(3):
                    s = half
                    for i, kk in enumerate(k):
                        s += rgb[(y * w + lo + i) * 3 + c] * kk
                    tmp[(y * ow + x) * 3 + c] = _clip8(s)
        rgb, w = tmp, ow
    if oh == h:
        return list(rgb)
    out, rows = [0] * (oh * ow * 3), _coeffs(h, oh)
    for y, (lo, k) in enumerate(rows):
        for x in range(ow):
            for c in range(3):
                s = half
                for i, kk in enumerate(k):
                    s += rgb[((lo + i) * ow + x) * 3 + c] * kk
                out[(y * ow + x) * 3 + c] = _clip8(s)
    return out


def image_digest(png_bytes):
    """TRTMC's media_digest of one still image (digests.py image_digest with one frame)."""
    width, height, rgb = read_png_rgb(png_bytes)
    return {"frames": 1, "height": height, "width": width, "sampled_frames": [0],
            "thumbnail_size": THUMBNAIL, "thumbnails": [resize(rgb, width, height, THUMBNAIL, THUMBNAIL)]}
