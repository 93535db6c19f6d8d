package main

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
)

// standInDLL returns a PE32+ (x86-64) DLL named name whose only exports
// are forwarders: each exports[i] names its target as "dll.Function", and
// the loader resolves it there. A DLL of forwarders has no code, no
// imports, no relocations and no entry point, so it is a few hundred bytes
// of headers and one export table that the smoke writes at run time,
// without a C compiler or a binary in the repository.
//
// Wine 8 has no bcryptprimitives.dll, which Go's runtime loads at start
// for ProcessPrng; advapi32's SystemFunction036 (RtlGenRandom) takes the
// same arguments (a buffer and its length, which Go keeps far below
// 4 GiB) and answers a non-zero byte when it filled the buffer, which is
// all the runtime and crypto/rand test of the answer.
func standInDLL(name string, exports []forward) []byte {
	const (
		fileAlign = 0x200
		rva       = 0x1000 // the export section's address, one page in
		headers   = 0x40 + 4 + 20 + 240 + 40
	)
	// The export section: the directory, then the tables and strings it
	// points at, each given as an address relative to the image.
	var sec bytes.Buffer
	le := binary.LittleEndian
	// The loader searches the names by bisection: they go in sorted.
	exports = slices.Clone(exports)
	slices.SortFunc(exports, func(a, b forward) int { return strings.Compare(a.name, b.name) })
	n := uint32(len(exports))
	dirSize := uint32(40)
	funcs := rva + dirSize
	names := funcs + 4*n
	ords := names + 4*n
	strs := ords + 2*n
	// Strings: the DLL's name, then each export's name and forwarder.
	var str bytes.Buffer
	addStr := func(s string) uint32 {
		at := strs + uint32(str.Len())
		str.WriteString(s)
		str.WriteByte(0)
		return at
	}
	nameRVA := addStr(name)
	nameAt := make([]uint32, n)
	targetAt := make([]uint32, n)
	for i, e := range exports {
		nameAt[i] = addStr(e.name)
		targetAt[i] = addStr(e.target)
	}
	dir := []uint32{
		0,       // Characteristics
		0,       // TimeDateStamp
		0,       // MajorVersion, MinorVersion
		nameRVA, // Name
		1,       // Base: the first ordinal
		n,       // NumberOfFunctions
		n,       // NumberOfNames
		funcs,   // AddressOfFunctions
		names,   // AddressOfNames
		ords,    // AddressOfNameOrdinals
	}
	for _, v := range dir {
		binary.Write(&sec, le, v)
	}
	// A function's address inside the export directory's range makes it
	// a forwarder: the address is that of the "dll.Function" string.
	for _, a := range targetAt {
		binary.Write(&sec, le, a)
	}
	for _, a := range nameAt {
		binary.Write(&sec, le, a)
	}
	for i := range exports {
		binary.Write(&sec, le, uint16(i))
	}
	sec.Write(str.Bytes())
	secSize := uint32(sec.Len())
	rawSize := (secSize + fileAlign - 1) &^ (fileAlign - 1)
	imageSize := uint32(rva + (secSize+0xfff)&^0xfff)

	var out bytes.Buffer
	// The MS-DOS header: only its magic and the offset of the PE header
	// count.
	dos := make([]byte, 0x40)
	copy(dos, "MZ")
	le.PutUint32(dos[0x3c:], 0x40)
	out.Write(dos)
	out.WriteString("PE\x00\x00")
	// The COFF header.
	binary.Write(&out, le, struct {
		Machine, Sections            uint16
		Time, Symbols, NumSymbols    uint32
		OptionalSize, Characteristic uint16
	}{
		Machine: 0x8664, Sections: 1, OptionalSize: 240,
		// An executable image, large-address aware, a DLL.
		Characteristic: 0x0002 | 0x0020 | 0x2000,
	})
	// The PE32+ optional header, with its 16 data directories; only the
	// first, the export table, is set.
	binary.Write(&out, le, struct {
		Magic                                     uint16
		LinkerMajor, LinkerMinor                  uint8
		CodeSize, DataSize, BSSSize               uint32
		Entry, CodeBase                           uint32
		ImageBase                                 uint64
		SectionAlign, FileAlign                   uint32
		OSMajor, OSMinor, ImgMajor, ImgMinor      uint16
		SubMajor, SubMinor                        uint16
		Win32Version, ImageSize, HeadersSize, Sum uint32
		Subsystem, DLLCharacteristics             uint16
		StackReserve, StackCommit                 uint64
		HeapReserve, HeapCommit                   uint64
		LoaderFlags, Directories                  uint32
		ExportRVA, ExportSize                     uint32
		Rest                                      [15][2]uint32
	}{
		Magic: 0x20b, DataSize: rawSize, CodeBase: rva,
		ImageBase: 0x180000000, SectionAlign: 0x1000, FileAlign: fileAlign,
		OSMajor: 6, SubMajor: 6,
		ImageSize: imageSize, HeadersSize: fileAlign,
		Subsystem: 3, // console; a DLL's subsystem is not used
		// Relocatable (there is nothing to relocate), no-execute safe.
		DLLCharacteristics: 0x0020 | 0x0040 | 0x0100,
		StackReserve:       0x100000, StackCommit: 0x1000,
		HeapReserve: 0x100000, HeapCommit: 0x1000,
		Directories: 16,
		ExportRVA:   rva, ExportSize: secSize,
	})
	// The one section header: initialized, read-only data.
	var secName [8]byte
	copy(secName[:], ".edata")
	binary.Write(&out, le, struct {
		Name                           [8]byte
		VirtualSize, VirtualAddress    uint32
		RawSize, RawPointer            uint32
		Relocations, LineNumbers       uint32
		NumRelocations, NumLineNumbers uint16
		Characteristics                uint32
	}{
		Name: secName, VirtualSize: secSize, VirtualAddress: rva,
		RawSize: rawSize, RawPointer: fileAlign,
		Characteristics: 0x00000040 | 0x40000000,
	})
	if out.Len() != headers {
		panic("standInDLL: the headers are not the size written")
	}
	out.Write(make([]byte, fileAlign-out.Len()))
	out.Write(sec.Bytes())
	out.Write(make([]byte, int(rawSize)-int(secSize)))
	return out.Bytes()
}

// A forward is one export of a stand-in DLL: its name, and the
// "dll.Function" the loader resolves it to.
type forward struct{ name, target string }

// bcryptPrimitives is the stand-in for bcryptprimitives.dll that Wine 8
// lacks: ProcessPrng, the one function Go's runtime and crypto/rand take
// from it, forwarded to advapi32's RtlGenRandom.
func bcryptPrimitives() []byte {
	return standInDLL("bcryptprimitives.dll", []forward{{"ProcessPrng", "advapi32.SystemFunction036"}})
}
