package sqlite

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/internal/scratch"
)

// listSpoolMemory is how much of the ListBundles stream is kept in memory; a larger stream (tens of
// thousands of bundles) goes to a temporary file, read back by each call.
var listSpoolMemory = 64 << 20

// listSpool keeps a stream of encoded messages: in memory while it is small, in a temporary file
// (removed by close) beyond listSpoolMemory. Messages are never changed once added, so the
// memory kept can be handed out without copying.
type listSpool struct {
	mem    [][]byte
	size   int
	file   *os.File
	w      *bufio.Writer
	remove func() error
}

func newListSpool() *listSpool { return &listSpool{} }

func (s *listSpool) add(msg []byte) error {
	if s.file == nil && s.size+len(msg) <= listSpoolMemory {
		s.mem = append(s.mem, msg)
		s.size += len(msg)
		return nil
	}
	if s.file == nil {
		f, remove, err := scratch.CreateTemp("", "olmcat-listbundles-*")
		if err != nil {
			return fmt.Errorf("keep the ListBundles stream: %w", err)
		}
		s.file, s.remove, s.w = f, remove, bufio.NewWriterSize(f, 1<<20)
	}
	var n [binary.MaxVarintLen64]byte
	if _, err := s.w.Write(n[:binary.PutUvarint(n[:], uint64(len(msg)))]); err != nil {
		return err
	}
	_, err := s.w.Write(msg)
	return err
}

func (s *listSpool) finish() error {
	if s.w == nil {
		return nil
	}
	return s.w.Flush()
}

// each sends every message in order; messages from the file are read into fresh buffers, since
// grpc may still be writing one after send returns.
func (s *listSpool) each(ctx context.Context, send func(api.PreEncoded) error) error {
	for _, m := range s.mem {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := send(m); err != nil {
			return err
		}
	}
	if s.file == nil {
		return nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(s.file, 0, 1<<62), 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the kept ListBundles stream: %w", err)
		}
		msg := make([]byte, n)
		if _, err := io.ReadFull(r, msg); err != nil {
			return fmt.Errorf("read the kept ListBundles stream: %w", err)
		}
		if err := send(msg); err != nil {
			return err
		}
	}
}

func (s *listSpool) close() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	return errors.Join(err, s.remove())
}
