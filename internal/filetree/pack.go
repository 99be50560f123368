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
	mem      [][]byte // memChunk bytes each, the last one filling: no byte is copied twice as it grows
	memSize  int64
	f        *os.File
	name     string // the file's name while it could not be unlinked
}

const memChunk = 256 << 10

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
	for _, c := range p.mem {
		if _, err := f.Write(c); err != nil {
			return err
		}
	}
	p.mem, p.memSize = nil, 0
	return nil
}

func (p *pack) Write(b []byte) (int, error) {
	if p.f == nil && p.memSize+int64(len(b)) <= p.memLimit {
		for rest := b; len(rest) > 0; {
			if len(p.mem) == 0 || len(p.mem[len(p.mem)-1]) == memChunk {
				p.mem = append(p.mem, make([]byte, 0, memChunk))
			}
			last := &p.mem[len(p.mem)-1]
			n := min(len(rest), memChunk-len(*last))
			*last = append(*last, rest[:n]...)
			rest = rest[n:]
		}
		p.memSize += int64(len(b))
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
	n := 0
	for n < len(b) && off < p.memSize {
		c := p.mem[off/memChunk][off%memChunk:]
		m := copy(b[n:], c)
		n += m
		off += int64(m)
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (p *pack) close() {
	p.mem, p.memSize = nil, 0
	if p.f != nil {
		_ = p.f.Close()
		if p.name != "" {
			_ = os.Remove(p.name)
		}
		p.f = nil
	}
}
