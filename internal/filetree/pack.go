package filetree

import (
	"io"
	"os"
)

// pack holds the content of a tree's files, one after another: in a temporary file, or in memory
// until it grows past memLimit (NewBuilderInMemory), then in a temporary file it is moved to. A
// bundle's few hundred kilobytes are read back at once: creating, unlinking and closing two
// files per bundle cost more than extracting it.
type pack struct {
	dir      string // where the temporary file is made
	memLimit int64
	mem      []byte
	f        *os.File
	name     string // the file's name while it could not be unlinked
}

// file makes the temporary file and moves what memory holds into it.
func (p *pack) file() error {
	f, err := os.CreateTemp(p.dir, "olmcat-tree-*")
	if err != nil {
		return err
	}
	if err := os.Remove(f.Name()); err != nil {
		p.name = f.Name()
	}
	p.f = f
	if len(p.mem) > 0 {
		_, err = f.Write(p.mem)
	}
	p.mem = nil
	return err
}

func (p *pack) Write(b []byte) (int, error) {
	if p.f == nil && int64(len(p.mem))+int64(len(b)) <= p.memLimit {
		p.mem = append(p.mem, b...)
		return len(b), nil
	}
	if p.f == nil {
		if err := p.file(); err != nil {
			return 0, err
		}
	}
	return p.f.Write(b)
}

func (p *pack) ReadAt(b []byte, off int64) (int, error) {
	if p.f != nil {
		return p.f.ReadAt(b, off)
	}
	if off >= int64(len(p.mem)) {
		if len(b) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(b, p.mem[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (p *pack) close() {
	p.mem = nil
	if p.f != nil {
		_ = p.f.Close()
		if p.name != "" {
			_ = os.Remove(p.name)
		}
		p.f = nil
	}
}
