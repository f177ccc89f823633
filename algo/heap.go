package algo

import "slices"

// Sizes of what an engine holds are stated beside its allocations (an
// engine's Bytes, a package's ...Bytes function), so that a sim can be
// charged for its memory before it is built. HeapBytes is the room the Go
// heap gives one allocation: an engine's footprint is the sum of its
// allocations' rooms, not of their lengths.

// sizeClasses are the Go runtime's object sizes up to 32 KiB
// (internal/runtime/gc/sizeclasses.go): a small allocation takes the
// first that holds it.
var sizeClasses = [...]int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// HeapBytes is the room the Go heap gives an allocation of b bytes: its
// size class up to 32 KiB, whole 8 KiB pages beyond (0 for none).
func HeapBytes(b int64) int64 {
	if b <= 0 {
		return 0
	}
	if b > sizeClasses[len(sizeClasses)-1] {
		return (b + 8<<10 - 1) &^ (8<<10 - 1)
	}
	i, _ := slices.BinarySearch(sizeClasses[:], b)
	return sizeClasses[i]
}
