package fbc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
)

// Editing a catalog file in place (olmcat's --in-place): SplitFile cuts a file into its blobs as
// the loader reads them, with where each lies, so that an edit can replace or remove the text of
// the blobs it changed and leave every other byte of the file as it was; EncodeLike (restyle.go)
// writes a changed blob in the style of the one it replaces.

// FilePiece is one blob of a catalog file and the bytes of the file it takes: [Start, End).
// In a JSON file that is the JSON value; in a YAML file the document, with the "---" line that
// opens it (the first document may have none) and the comments and blank lines up to the next.
type FilePiece struct {
	Blob       Blob
	Start, End int
}

// FileText is a catalog file split into its blobs, as the loader reads it.
type FileText struct {
	Data   []byte
	YAML   bool // a YAML stream; otherwise a stream of JSON values
	Pieces []FilePiece
}

// SplitFile splits the text of the catalog file name (as the loader names it) into its blobs,
// deciding between JSON and YAML from the content as the loader does. It fails on the first
// problem the loader would report: a file the loader reads cleanly splits cleanly.
func SplitFile(data []byte, name string) (*FileText, error) {
	ft := &FileText{Data: data}
	base := 0
	if bytes.HasPrefix(data, utf8BOM) {
		base = len(utf8BOM)
	}
	br := bufio.NewReaderSize(bytes.NewReader(data[base:]), readBufferSize)
	first := firstNonSpace(data[base:])
	if first >= 0 && data[base+first] == '{' {
		s := jsonSplitter{br: br, line: 1, max: math.MaxInt32, off: int64(base)}
		for {
			text, line, err := s.next()
			if err == io.EOF {
				return ft, nil
			}
			loc := Location{File: name, Line: line}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", loc, err)
			}
			b, lerr := newBlob(text, loc, true)
			if lerr != nil {
				return nil, lerr
			}
			ft.Pieces = append(ft.Pieces, FilePiece{Blob: b, Start: int(s.start), End: int(s.start) + len(text)})
		}
	}
	ft.YAML = true
	s := yamlSplitter{br: br, line: 1, max: math.MaxInt32}
	off := base
	for {
		doc, err := s.next()
		if err == io.EOF {
			return ft, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Location{File: name, Line: s.line}, err)
		}
		start := off
		off += len(doc.text)
		if doc.contentLine == 0 {
			continue
		}
		loc := Location{File: name, Line: doc.contentLine}
		js, err := yamlToJSON(doc.text)
		if err != nil {
			return nil, yamlError(err, loc, doc.startLine, doc.lastLine())
		}
		b, lerr := newBlob(js, loc, false)
		if lerr != nil {
			return nil, lerr
		}
		ft.Pieces = append(ft.Pieces, FilePiece{Blob: b, Start: start, End: off})
	}
}
