package bundledir

import "fmt"

// Warning is something in a bundle directory that opm accepts without a word although it is
// almost certainly not what the author meant: a dependency opm cannot read, a metadata file it
// ignores, a manifest file it skips. The bundle still renders, exactly as opm renders it. Parse
// returns warnings and never prints them; commands print them (or refuse the bundle with --strict).
type Warning struct {
	// File is the file at fault, joined to the bundle directory as given to Parse
	// (e.g. bundle/metadata/dependencies.yaml).
	File string `json:"file"`
	// Line is the 1-based line in File (for a dependency, the line of its entry); 0 when unknown.
	Line int `json:"line,omitempty"`
	// Message says what is wrong, what opm does with it and how to fix it.
	Message string `json:"message"`
}

// String is "FILE:LINE: MESSAGE" (or "FILE: MESSAGE" when the line is unknown).
func (w Warning) String() string {
	switch {
	case w.File == "":
		return w.Message
	case w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	}
	return w.File + ": " + w.Message
}

func warnf(file string, line int, format string, args ...any) Warning {
	return Warning{File: file, Line: line, Message: fmt.Sprintf(format, args...)}
}
