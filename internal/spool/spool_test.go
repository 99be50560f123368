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
