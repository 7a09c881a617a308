#!/usr/bin/env python3
"""Writes the artifact a pack list names (`build --packs`) to stdout, read
with nothing of the Rust code: the list's layout as docs/artifact.md
("Packed artifacts") states it. A second reader, for benches/rebuild.sh to
compare a packed build's bytes with a one-file build's.

    python3 benches/unpack.py out/catalog.fcat > catalog.fcat
"""
import os
import struct
import sys
import zlib

MAGIC = b"\x89FCP\r\n\x1a\n"


def main(path):
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        sys.exit(f"{path}: not a pack list")
    version, count, length = struct.unpack_from("<IIQ", data, 8)
    if version != 1 or len(data) != 24 + 48 * count + 4:
        sys.exit(f"{path}: version {version}, {count} ranges in {len(data)} bytes")
    if zlib.crc32(data[:-4]) != struct.unpack_from("<I", data, len(data) - 4)[0]:
        sys.exit(f"{path}: CRC-32 mismatch")
    packs = os.path.join(os.path.dirname(os.path.abspath(path)), "fcpacks")
    out = sys.stdout.buffer
    total = 0
    for n in range(count):
        at = 24 + 48 * n
        digest = data[at : at + 32].hex()
        start, size = struct.unpack_from("<QQ", data, at + 32)
        with open(os.path.join(packs, digest + ".fcpack"), "rb") as pack:
            pack.seek(start)
            left = size
            while left:
                chunk = pack.read(min(left, 8 << 20))
                if not chunk:
                    sys.exit(f"{path}: pack {digest} ends before byte {start + size}")
                out.write(chunk)
                left -= len(chunk)
        total += size
    if total != length:
        sys.exit(f"{path}: ranges of {total} bytes, the list says {length}")


if __name__ == "__main__":
    main(sys.argv[1])
