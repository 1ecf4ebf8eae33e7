import struct
import zlib

from app.check.plot import write_busbw_plot
from app.check.report import BandwidthRow


def test_plot_is_a_valid_png_with_one_line_per_collective(tmp_path):
    rows = [
        BandwidthRow(c, s, s // 4, "float", "sum", -1, 10.0, s / 1e4, s / 1e4 * 1.5, 0)
        for c in ("all_reduce", "broadcast")
        for s in (1024, 65536, 1 << 22)
    ]
    path = tmp_path / "busbw.png"
    write_busbw_plot(str(path), {"all ranks (2)": rows})
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    idat = data.index(b"IDAT")
    length = struct.unpack(">I", data[idat - 4 : idat])[0]
    raw = zlib.decompress(data[idat + 4 : idat + 4 + length])
    assert len(raw) == height * (1 + width * 3)
    # the palette's first two colours (one per line) are drawn
    assert bytes((31, 119, 180)) in raw and bytes((255, 127, 14)) in raw
