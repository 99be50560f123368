package progress

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake clock the tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock               { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func started(w *bytes.Buffer, c *clock) *Reporter {
	r := New(w)
	r.Start("olmcat migrate", Options{Now: c.now, Manual: true, Width: 200})
	return r
}

// The line waits for the delay: a command that ends sooner writes nothing at all.
func TestNothingBeforeTheDelay(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	r := started(&w, c)
	r.Phase("reading")
	r.Add("package", 3)
	c.add(DefaultDelay - time.Millisecond)
	r.Tick()
	r.Add("bundle", 10)
	r.Close()
	if w.Len() != 0 {
		t.Fatalf("wrote %q before the delay", w.String())
	}
}

// After the delay the line shows the phase, the counts in the order first counted and the time
// spent, replaced in place; redraws are throttled to the interval; Close clears it.
func TestLineReplacedThrottledAndCleared(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	r := started(&w, c)
	r.Phase("reading index.db")
	r.Add("package", 1)
	r.Add("bundle", 25)
	c.add(1200 * time.Millisecond)
	r.Tick()
	want := "\rolmcat migrate: reading index.db: 1 package, 25 bundles (1 s)\x1b[K"
	if w.String() != want {
		t.Fatalf("first draw %q, want %q", w.String(), want)
	}
	w.Reset()
	c.add(DefaultInterval / 2)
	r.Add("package", 1) // within the interval: not drawn
	r.Tick()
	if w.Len() != 0 {
		t.Fatalf("redrawn within the interval: %q", w.String())
	}
	c.add(DefaultInterval)
	r.Add("package", 1)
	if want := "\rolmcat migrate: reading index.db: 3 packages, 25 bundles (1 s)\x1b[K"; w.String() != want {
		t.Fatalf("redraw %q, want %q", w.String(), want)
	}
	w.Reset()
	r.Close()
	if w.String() != "\r\x1b[K" {
		t.Fatalf("Close wrote %q, want the line cleared", w.String())
	}
	w.Reset()
	r.Add("package", 1)
	r.Tick()
	r.Close()
	if w.Len() != 0 {
		t.Fatalf("wrote %q after Close", w.String())
	}
}

// A message written meanwhile clears the line first; the line comes back at the next redraw.
func TestMessagesClearTheLine(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	r := started(&w, c)
	r.Phase("loading")
	c.add(2 * time.Second)
	r.Tick()
	w.Reset()
	r.Write([]byte("olmcat: warning: something\n"))
	if w.String() != "\r\x1b[Kolmcat: warning: something\n" {
		t.Fatalf("message written as %q", w.String())
	}
	w.Reset()
	r.Write([]byte("olmcat: second\n")) // no line on screen: written as it is
	if w.String() != "olmcat: second\n" {
		t.Fatalf("second message written as %q", w.String())
	}
	w.Reset()
	c.add(DefaultInterval)
	r.Tick()
	if !strings.HasPrefix(w.String(), "\rolmcat migrate: loading (2 s)") {
		t.Fatalf("line not back after the message: %q", w.String())
	}
}

// A known total shows n/total and the time left at the rate so far; a new phase drops the counts.
func TestTotalAndEstimate(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	r := New(&w)
	r.Start("olmcat compat", Options{Now: c.now, Manual: true, Width: 200, Delay: 10 * time.Second})
	r.Phase("comparing")
	r.Set("call", 0, 400)
	c.add(10*time.Second - time.Millisecond)
	r.Add("bundle", 7) // not yet drawn: within the delay
	c.add(time.Millisecond)
	r.Set("call", 100, 400)
	if want := "\rolmcat compat: comparing: 100/400 calls, 7 bundles, 30 s left (10 s)\x1b[K"; w.String() != want {
		t.Fatalf("got %q, want %q", w.String(), want)
	}
	w.Reset()
	c.add(DefaultInterval)
	r.Set("call", 399, 400)
	if want := "\rolmcat compat: comparing: 399/400 calls, 7 bundles, under 1 s left (10 s)\x1b[K"; w.String() != want {
		t.Fatalf("got %q, want %q", w.String(), want)
	}
	w.Reset()
	c.add(time.Second)
	r.Phase("writing the report")
	if want := "\rolmcat compat: writing the report (11 s)\x1b[K"; w.String() != want {
		t.Fatalf("got %q, want %q", w.String(), want)
	}
}

// The line is cut to the terminal's width less one column, so that it never wraps.
func TestLineFitsTheTerminal(t *testing.T) {
	var w bytes.Buffer
	c := newClock()
	r := New(&w)
	r.Start("olmcat diff", Options{Now: c.now, Manual: true, Width: 20})
	r.Phase("reading a rather long catalog name")
	c.add(5 * time.Second)
	r.Tick()
	line := strings.TrimSuffix(strings.TrimPrefix(w.String(), "\r"), "\x1b[K")
	if line != "olmcat diff: readi…" {
		t.Fatalf("line %q, want 19 characters ending in …", line)
	}
}

// Not started (never, or not a terminal in auto): writes pass on, nothing else is written.
func TestNotStartedPassesWritesOn(t *testing.T) {
	var w bytes.Buffer
	r := New(&w)
	r.Phase("reading")
	r.Add("package", 5)
	r.Tick()
	r.Write([]byte("olmcat: done\n"))
	r.Close()
	if w.String() != "olmcat: done\n" || r.Active() {
		t.Fatalf("wrote %q, active %v", w.String(), r.Active())
	}
	var nilReporter *Reporter
	nilReporter.Phase("x")
	nilReporter.Add("package", 1)
	nilReporter.Close()
}

func TestParseModeAndOn(t *testing.T) {
	for _, c := range []struct {
		s              string
		tty, notTTY    bool
		wantParseError bool
	}{
		{"never", false, false, false},
		{"auto", true, false, false},
		{"always", true, true, false},
		{"sometimes", false, false, true},
	} {
		m, err := ParseMode(c.s)
		if (err != nil) != c.wantParseError {
			t.Fatalf("ParseMode(%q): %v", c.s, err)
		}
		if err == nil && (m.On(true) != c.tty || m.On(false) != c.notTTY) {
			t.Errorf("%s: on a terminal %v, elsewhere %v", c.s, m.On(true), m.On(false))
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		850 * time.Millisecond:               "850 ms",
		4*time.Second + 900*time.Millisecond: "4 s",
		125 * time.Second:                    "2 min 5 s",
		63 * time.Minute:                     "1 h 3 min",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// With its own timer, updates and messages from several goroutines at once: the writes never
// interleave (every message arrives whole, at the start of a line), and whatever was drawn is
// cleared by Close. (Run with -race.)
func TestConcurrentUseWithTheTimer(t *testing.T) {
	var w lockedBuffer
	r := New(&w)
	r.Start("olmcat diff", Options{Delay: time.Nanosecond, Interval: time.Nanosecond, Width: 200})
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				r.Add("bundle", 1)
				if i%50 == 0 {
					r.Write([]byte("olmcat: message " + strconv.Itoa(g) + "\n"))
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	r.Close()
	out := w.String()
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Fatalf("the line is not cleared at the end: %q", out[max(0, len(out)-80):])
	}
	messages := 0
	for i := 0; ; {
		j := strings.Index(out[i:], "olmcat: message ")
		if j < 0 {
			break
		}
		at := i + j
		if at > 0 && !strings.HasSuffix(out[:at], "\n") && !strings.HasSuffix(out[:at], "\r\x1b[K") {
			t.Fatalf("a message not at the start of a line: %q", out[max(0, at-60):at+20])
		}
		messages++
		i = at + 1
	}
	if messages != 16 {
		t.Errorf("%d messages written, want 16", messages)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
