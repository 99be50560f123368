package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The default format is opm serve's (logrus's text formatter without a terminal): time, level and
// msg first, then the other keys sorted; values quoted only when they hold more than
// [A-Za-z0-9-._/@^+].
func TestLogFormatText(t *testing.T) {
	var b bytes.Buffer
	log, err := NewLogger(&b, "text", slog.LevelInfo)
	if err != nil {
		t.Fatal(err)
	}
	log.With("port", 50051).Info("serving registry", "configs", "/configs", "load", 1500*time.Millisecond, "error", errors.New("a b"), "empty", "")
	log.Warn("cache is damaged; rebuilding it", "dir", "/tmp/cache")
	log.Debug("not shown")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^time="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)" level=info msg="serving registry" configs=/configs empty= error="a b" load=1.5s port=50051$`),
		regexp.MustCompile(`^time="[^"]+" level=warning msg="cache is damaged; rebuilding it" dir=/tmp/cache$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %s\nwant %s", i+1, lines[i], re)
		}
	}
}

func TestLogFormatJSON(t *testing.T) {
	var b bytes.Buffer
	log, err := NewLogger(&b, "json", slog.LevelDebug)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("request", "status", 200)
	var rec map[string]any
	if err := json.Unmarshal(b.Bytes(), &rec); err != nil {
		t.Fatalf("%q: %v", b.String(), err)
	}
	if rec["level"] != "DEBUG" || rec["msg"] != "request" || rec["status"] != float64(200) || rec["time"] == nil {
		t.Errorf("record %v", rec)
	}
	if _, err := NewLogger(&b, "yaml", slog.LevelInfo); err == nil {
		t.Error("an unknown format was accepted")
	}
}
