package bytepool

import "testing"

func TestGetHasRoom(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 5000, 1 << 20, 1<<26 + 1} {
		if b := Get(n); len(b) != 0 || cap(b) < n {
			t.Errorf("Get(%d): len %d cap %d", n, len(b), cap(b))
		}
	}
}

func TestRecycledBuffersFitEveryRequestOfTheirClass(t *testing.T) {
	// A 5000-byte buffer goes to the 4 KiB class: it must never be handed out for a request of
	// more than 5000 bytes, whichever class that request reads.
	for _, size := range []int{5000, 4096, 8191, 1 << 20} {
		for _, n := range []int{size / 2, size - 1, size, size + 1, 2 * size} {
			Put(make([]byte, 7, size))
			if b := Get(n); len(b) != 0 || cap(b) < n {
				t.Errorf("Put(cap %d), Get(%d): len %d cap %d", size, n, len(b), cap(b))
			}
		}
	}
}

func TestSmallBuffersAreDropped(t *testing.T) {
	Put(make([]byte, 10)) // must not panic or land in a class
	if b := Get(10); cap(b) < 10 {
		t.Fatalf("cap %d", cap(b))
	}
}

func BenchmarkGetPut(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buf := Get(20 << 10)
		buf = append(buf, make([]byte, 20<<10)...)
		Put(buf)
	}
}
