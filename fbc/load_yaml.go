package fbc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// readYAML reads a multi-document YAML stream. Documents are split on "---" lines first and each is
// converted on its own, so one broken document is reported without hiding the ones after it.
// Documents holding nothing but blank lines and comments are skipped.
func (fr *fileReader) readYAML(br *bufio.Reader) error {
	s := yamlSplitter{br: br, line: 1, max: fr.maxBlob}
	for {
		doc, err := s.next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, ErrBlobTooLarge):
			line := doc.contentLine
			if line == 0 {
				line = s.line
			}
			fr.report(tooLarge(Location{File: fr.file, Line: line}, fr.maxBlob))
			return nil
		case err != nil:
			fr.report(readError(Location{File: fr.file, Line: s.line}, err))
			return nil
		}
		if doc.contentLine == 0 {
			continue
		}
		loc := Location{File: fr.file, Line: doc.contentLine}
		data, err := yamlToJSON(doc.text)
		if err != nil {
			fr.report(yamlError(err, loc, doc.startLine, doc.lastLine()))
			continue
		}
		b, lerr := newBlob(data, loc, false)
		if lerr != nil {
			fr.report(lerr)
			continue
		}
		if err := fr.emit(b); err != nil {
			return err
		}
	}
}

// yamlToJSON converts one document, turning a parser panic into an error.
func yamlToJSON(doc []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("the YAML parser failed on this document: %v", r)
		}
	}()
	return yaml.YAMLToJSON(doc)
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlError rebases the parser's document-relative line number ("yaml: line 5: ...") on the file;
// the parser may name the line after the last one when the document ends early.
func yamlError(err error, loc Location, docStart, docEnd int) *LoadError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			loc.Line = min(docStart+n-1, docEnd)
			msg = err.Error()[len(m[0]):]
		}
	}
	hint := "fix the YAML syntax"
	if strings.Contains(msg, "tab character") || strings.Contains(msg, "cannot start any token") {
		hint = "YAML indentation must use spaces, not tabs"
	}
	return &LoadError{Loc: loc, Err: &problem{kind: ErrSyntax, cause: err, msg: fmt.Sprintf("invalid YAML: %s; %s", msg, hint)}}
}

// yamlSplitter cuts a YAML stream into documents at lines that start with "---" followed by
// whitespace or nothing. The separator line is kept as the first line of the document it opens, so
// that the parser sees an explicit document start and its line numbers stay aligned with the file.
type yamlSplitter struct {
	br        *bufio.Reader
	line      int // line number of the next unread line
	max       int
	carry     []byte // separator line read while finishing the previous document
	carryLine int
	done      bool
}

type yamlDoc struct {
	text        []byte
	startLine   int // file line of text's first line
	contentLine int // first line holding something other than blanks and comments; 0 if none
}

func (s *yamlSplitter) next() (yamlDoc, error) {
	if s.done {
		return yamlDoc{}, io.EOF
	}
	doc := yamlDoc{startLine: s.line}
	var text []byte
	if s.carry != nil {
		doc.startLine = s.carryLine
		text = s.carry
		if separatorHasContent(s.carry) {
			doc.contentLine = s.carryLine
		}
		s.carry = nil
	}
	for {
		lineStart := len(text)
		var err error
		text, err = s.readLine(text)
		if err != nil && err != io.EOF {
			return doc, err
		}
		ln := text[lineStart:]
		if len(ln) == 0 { // end of stream
			s.done = true
			break
		}
		lineNo := s.line
		s.line++
		switch {
		case isDocSeparator(ln) && lineStart == 0:
			doc.startLine = lineNo
			if separatorHasContent(ln) {
				doc.contentLine = lineNo
			}
		case isDocSeparator(ln):
			s.carry = append([]byte(nil), ln...)
			s.carryLine = lineNo
			doc.text = text[:lineStart]
			return doc, nil
		case doc.contentLine == 0 && isYAMLContent(ln):
			doc.contentLine = lineNo
		}
		if err == io.EOF {
			s.done = true
			break
		}
	}
	doc.text = text
	if doc.contentLine == 0 && s.done && len(text) == 0 {
		return doc, io.EOF
	}
	return doc, nil
}

// lastLine is the file line of the document's last line.
func (d yamlDoc) lastLine() int {
	n := bytes.Count(d.text, []byte{'\n'})
	if len(d.text) > 0 && d.text[len(d.text)-1] != '\n' {
		n++
	}
	return d.startLine + max(n, 1) - 1
}

// readLine appends the next line (with its newline, if any) to buf.
func (s *yamlSplitter) readLine(buf []byte) ([]byte, error) {
	for {
		frag, err := s.br.ReadSlice('\n')
		var ok bool
		if buf, ok = appendCapped(buf, frag, s.max, false); !ok {
			return buf, ErrBlobTooLarge
		}
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

func isDocSeparator(line []byte) bool {
	return len(line) >= 3 && string(line[:3]) == "---" && (len(line) == 3 || isSpace(line[3]))
}

// separatorHasContent reports whether a "---" line carries the start of its document, as in
// "--- {a: 1}"; a trailing comment is not content.
func separatorHasContent(line []byte) bool {
	rest := bytes.TrimSpace(line[3:])
	return len(rest) > 0 && rest[0] != '#'
}

func isYAMLContent(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] != '#' && string(t) != "..."
}
