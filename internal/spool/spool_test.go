package spool

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

func TestSpoolKeepsRecordsInMemoryThenOnDisk(t *testing.T) {
	for _, limit := range []int{0, 10, 1 << 20} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := New(limit)
			var want [][]byte
			for i := range 100 {
				rec := bytes.Repeat([]byte{byte(i)}, i%7) // empty records too
				want = append(want, rec)
				if err := s.Add(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Finish(); err != nil {
				t.Fatal(err)
			}
			if s.Len() != len(want) || s.OnDisk() != (limit < 300) {
				t.Fatalf("Len %d, on disk %v", s.Len(), s.OnDisk())
			}
			for i := len(want) - 1; i >= 0; i-- {
				got, err := s.Get(i)
				if err != nil || !bytes.Equal(got, want[i]) {
					t.Fatalf("record %d: %v, %v", i, got, err)
				}
			}
			name := ""
			if s.file != nil {
				name = s.file.Name()
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if name != "" {
				if _, err := os.Stat(name); !os.IsNotExist(err) {
					t.Errorf("%s left behind", name)
				}
			}
		})
	}
}

// A server that closes its backend while a ListBundles stream still reads the spool (after the
// drain timeout) must get an error from Get, not a panic or a data race: Get used to call
// s.file.Name() on the nil file Close left behind.
func TestGetDuringAndAfterCloseFails(t *testing.T) {
	s := New(0) // every record on disk
	for i := range 1000 {
		if err := s.Add([]byte(fmt.Sprint("record ", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	readers := make(chan error, 4)
	for range cap(readers) {
		go func() {
			for i := range s.Len() {
				if _, err := s.Get(i); err != nil {
					readers <- err
					return
				}
			}
			readers <- nil
		}()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range cap(readers) {
		<-readers // finished or stopped by the close: either is right
	}
	if _, err := s.Get(s.Len() - 1); err == nil {
		t.Error("Get after Close read a record")
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
