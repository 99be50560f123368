// Package spool keeps a sequence of byte records, such as encoded messages: in memory while they
// are few, in a temporary file beyond a memory limit, so that holding a stream as large as a
// catalog costs bounded memory. Records are never changed once added; a record from memory is
// handed out without copying, one from the file in a fresh buffer.
package spool

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/olmcat/olmcat/internal/scratch"
)

// Spool is an append-only list of records. Add, then Finish, then Get from any goroutine.
type Spool struct {
	limit  int
	mem    [][]byte
	size   int
	file   *os.File
	w      *bufio.Writer
	remove func() error
	offs   []int64 // of file records: record i is offs[i-len(mem)] .. offs[i-len(mem)+1]
	end    int64

	closeOnce sync.Once
	closeErr  error
}

// New returns a spool that keeps up to limit bytes of records in memory.
func New(limit int) *Spool { return &Spool{limit: limit} }

// Add appends a record; the spool keeps rec, which must not change afterwards.
func (s *Spool) Add(rec []byte) error {
	if s.file == nil && s.size+len(rec) <= s.limit {
		s.mem = append(s.mem, rec)
		s.size += len(rec)
		return nil
	}
	if s.file == nil {
		f, remove, err := scratch.CreateTemp("", "olmcat-spool-*")
		if err != nil {
			return fmt.Errorf("spool to a temporary file: %w", err)
		}
		s.file, s.remove, s.w = f, remove, bufio.NewWriterSize(f, 1<<20)
		s.offs = append(s.offs, 0)
	}
	if _, err := s.w.Write(rec); err != nil {
		return fmt.Errorf("spool to %s: %w", s.file.Name(), err)
	}
	s.end += int64(len(rec))
	s.offs = append(s.offs, s.end)
	return nil
}

// Finish makes the records added so far readable.
func (s *Spool) Finish() error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool to %s: %w", s.file.Name(), err)
	}
	return nil
}

// Len is the number of records.
func (s *Spool) Len() int {
	if s.file == nil {
		return len(s.mem)
	}
	return len(s.mem) + len(s.offs) - 1
}

// OnDisk reports whether some records went to the temporary file.
func (s *Spool) OnDisk() bool { return s.file != nil }

// Get returns record i.
func (s *Spool) Get(i int) ([]byte, error) {
	if i < len(s.mem) {
		return s.mem[i], nil
	}
	j := i - len(s.mem)
	rec := make([]byte, s.offs[j+1]-s.offs[j])
	if _, err := s.file.ReadAt(rec, s.offs[j]); err != nil {
		return nil, fmt.Errorf("read back %s: %w", s.file.Name(), err)
	}
	return rec, nil
}

// Close removes the temporary file, if any. A Get running at the same time, or called after,
// fails with an error rather than reading a record: Close leaves the spool's fields as they are,
// so that it never races with readers.
func (s *Spool) Close() error {
	if s.file == nil {
		return nil
	}
	s.closeOnce.Do(func() { s.closeErr = errors.Join(s.file.Close(), s.remove()) })
	return s.closeErr
}
