package runfixture

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
)

// SmallPNG is a valid 4×4 PNG.
func SmallPNG() []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return buf.Bytes()
}

// PNGDeclaring is a PNG whose header declares w×h 8-bit gray pixels and whose data is one
// zero row: a few hundred bytes that make a decoder allocate w×h bytes before it finds the data
// short (a decompression bomb's header, without its megabytes).
func PNGDeclaring(w, h uint32) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8] = 8 // bit depth; colour type 0 (gray), no interlace
	writeChunk(&out, "IHDR", ihdr)
	var idat bytes.Buffer
	z := zlib.NewWriter(&idat)
	z.Write(make([]byte, 1+min(int(w), 1<<16)))
	z.Close()
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	return out.Bytes()
}

func writeChunk(out *bytes.Buffer, typ string, data []byte) {
	binary.Write(out, binary.BigEndian, uint32(len(data)))
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	out.WriteString(typ)
	out.Write(data)
	binary.Write(out, binary.BigEndian, crc.Sum32())
}
