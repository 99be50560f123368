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

var payload = make([]byte, 20<<10)

func BenchmarkGetPut(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buf := Get(20 << 10)
		buf = append(buf, payload...)
		Put(buf)
	}
}

func TestClasses(t *testing.T) {
	want := []int{512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048, 2560}
	for k, size := range want {
		if got := classSize(k); got != size {
			t.Errorf("classSize(%d) = %d, want %d", k, got, size)
		}
	}
	for n := 1; n <= 1<<20; n++ {
		k := classOf(n)
		if classSize(k) < n || k > 0 && classSize(k-1) >= n {
			t.Fatalf("classOf(%d) = %d (size %d): not the smallest class that holds it", n, k, classSize(k))
		}
		if n >= minSize {
			f := fitOf(n)
			if classSize(f) > n || classSize(f+1) <= n {
				t.Fatalf("fitOf(%d) = %d (size %d): not the largest class it holds", n, f, classSize(f))
			}
		}
	}
	if classSize(classOf(maxSize)) != maxSize {
		t.Fatalf("the last class is %d bytes, want %d", classSize(classOf(maxSize)), maxSize)
	}
}

func TestNewBuffersGoBackToTheirClass(t *testing.T) {
	b := Get(20000)
	if c := cap(b); c != classSize(classOf(20000)) || fitOf(c) != classOf(20000) {
		t.Fatalf("Get(20000) made a buffer of %d bytes, which Put files under class %d, not %d", c, fitOf(c), classOf(20000))
	}
	if waste := cap(b) - 20000; waste*5 > cap(b) {
		t.Fatalf("Get(20000) made %d bytes: more than a fifth wasted", cap(b))
	}
}
