// Package progress shows what a long command is doing on one line of a terminal: the command, its
// phase, what it has counted so far (packages and bundles read, calls made: n or n/total with an
// estimate of the time left) and the time spent, redrawn in place and cleared at the end.
//
// A Reporter is the standard error of a command: everything else the command writes there goes
// through it, clearing the line first, so that messages and the progress line never mix. Until
// Start it only passes writes on, and it is only started on a terminal (or when asked to be): a
// log file or a CI job gets none of it. The line appears only once the work has run for Delay,
// so that short commands never flash it, and is redrawn at most every Interval. Only commands
// (package main) create and start one; the features they call are given its methods as optional
// callbacks and never look at the terminal themselves.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/plural"
)

// Mode is --progress: never, auto (on a terminal) or always.
type Mode string

const (
	Never  Mode = "never"
	Auto   Mode = "auto"
	Always Mode = "always"
)

// ParseMode reads the value of --progress.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Never, Auto, Always:
		return m, nil
	}
	return "", fmt.Errorf("--progress must be never, auto or always, not %q", s)
}

// On says whether a reporter in this mode shows progress, stderr being a terminal or not.
func (m Mode) On(terminal bool) bool { return m == Always || (m == Auto && terminal) }

const (
	// DefaultDelay is how long the work runs before the line first appears.
	DefaultDelay = time.Second
	// DefaultInterval is how often, at most, the line is redrawn.
	DefaultInterval = 150 * time.Millisecond
	// DefaultWidth is the terminal width assumed when it is not known.
	DefaultWidth = 80
)

// minTick is the shortest period of the timer that redraws the line while nothing is counted.
const minTick = 50 * time.Millisecond

// Options configure Start.
type Options struct {
	Now      func() time.Time // nil: time.Now
	Delay    time.Duration    // 0: DefaultDelay
	Interval time.Duration    // 0: DefaultInterval
	Width    int              // columns of the terminal (0: DefaultWidth); the line never wraps
	// Manual redraws only on Tick and updates, without a timer of its own (tests).
	Manual bool
}

// Reporter is a command's standard error with a progress line on it. Its methods are safe for
// concurrent use, and do nothing on a nil *Reporter.
type Reporter struct {
	mu       sync.Mutex
	w        io.Writer
	o        Options
	on       bool
	prefix   string
	start    time.Time
	phase    string
	counters []*counter
	lastDraw time.Time
	shown    bool // the line is on the terminal
	stop     chan struct{}
	stopped  chan struct{}
}

type counter struct {
	noun      string
	n, total  int
	startedAt time.Time
}

// New returns a reporter that passes writes on to w and shows nothing until Start.
func New(w io.Writer) *Reporter { return &Reporter{w: w} }

// Start shows progress from now on, each line starting with prefix ("olmcat migrate").
func (r *Reporter) Start(prefix string, o Options) {
	if r == nil {
		return
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Delay <= 0 {
		o.Delay = DefaultDelay
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		return
	}
	r.on, r.o, r.prefix, r.start = true, o, prefix, o.Now()
	if o.Manual {
		return
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	r.stop, r.stopped = stop, stopped
	go func() {
		defer close(stopped)
		t := time.NewTicker(max(o.Interval, minTick))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				r.Tick()
			}
		}
	}()
}

// Active says whether progress is shown (Start was called, Close not yet).
func (r *Reporter) Active() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.on
}

// Phase names what the command does now ("reading", "writing the report"); the counts of the
// previous phase are dropped.
func (r *Reporter) Phase(name string) {
	r.update(func() { r.phase, r.counters = name, nil })
}

// Add counts n more of noun ("package", "bundle"), shown in the order first counted.
func (r *Reporter) Add(noun string, n int) {
	r.update(func() { r.counter(noun).n += n })
}

// Set sets the count of noun to n of total (total 0: unknown). A known total shows as n/total
// with an estimate of the time left.
func (r *Reporter) Set(noun string, n, total int) {
	r.update(func() {
		c := r.counter(noun)
		c.n, c.total = n, total
	})
}

func (r *Reporter) counter(noun string) *counter {
	for _, c := range r.counters {
		if c.noun == noun {
			return c
		}
	}
	c := &counter{noun: noun, startedAt: r.o.Now()}
	r.counters = append(r.counters, c)
	return c
}

func (r *Reporter) update(change func()) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.on {
		return
	}
	change()
	r.drawIfDue()
}

// Tick redraws the line if it is due (the timer of Start calls it).
func (r *Reporter) Tick() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.drawIfDue()
	}
}

func (r *Reporter) drawIfDue() {
	now := r.o.Now()
	if now.Sub(r.start) < r.o.Delay || (r.shown && now.Sub(r.lastDraw) < r.o.Interval) {
		return
	}
	r.lastDraw, r.shown = now, true
	io.WriteString(r.w, "\r"+fit(r.line(now), r.o.Width-1)+"\x1b[K")
}

// line is the progress line: "olmcat migrate: reading: 12 packages, 340 bundles (3 s)".
func (r *Reporter) line(now time.Time) string {
	var b strings.Builder
	b.WriteString(r.prefix)
	if r.phase != "" {
		b.WriteString(": " + r.phase)
	}
	left := ""
	for i, c := range r.counters {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		if c.total > 0 {
			b.WriteString(strconv.Itoa(c.n) + "/" + plural.Of(c.total, c.noun))
		} else {
			b.WriteString(plural.Of(c.n, c.noun))
		}
		if eta, ok := c.eta(now); ok && left == "" {
			left = ", " + Duration(eta.Round(time.Second)) + " left"
			if eta < time.Second {
				left = ", under 1 s left"
			}
		}
	}
	b.WriteString(left + " (" + Duration(now.Sub(r.start)) + ")")
	return b.String()
}

// eta is the time left at the rate so far, once there is a rate to go by.
func (c *counter) eta(now time.Time) (time.Duration, bool) {
	spent := now.Sub(c.startedAt)
	if c.total <= 0 || c.n <= 0 || c.n >= c.total || spent <= 0 {
		return 0, false
	}
	return time.Duration(float64(spent) * float64(c.total-c.n) / float64(c.n)), true
}

// Duration is d for a person: "850 ms" below a second, "4 s", "2 min 5 s", "1 h 3 min".
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d.Milliseconds())) + " ms"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

// fit cuts s to n characters, so that the line never wraps (a wrapped line is not replaced in
// place).
func fit(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

// clear removes the line from the terminal.
func (r *Reporter) clear() {
	if r.shown {
		io.WriteString(r.w, "\r\x1b[K")
		r.shown = false
	}
}

// Write writes p to the command's standard error, below no progress line: the line is cleared
// first and comes back at the next redraw.
func (r *Reporter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clear()
	return r.w.Write(p)
}

// Close clears the line and stops showing progress; writes still pass on. It may be called
// more than once.
func (r *Reporter) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	stop, stopped := r.stop, r.stopped
	r.stop = nil
	r.on = false
	r.clear()
	r.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
}

// File is the file the reporter writes to, when it is one: what tells whether it is a terminal.
func (r *Reporter) File() *os.File {
	switch w := r.w.(type) {
	case *os.File:
		return w
	case interface{ File() *os.File }:
		return w.File()
	}
	return nil
}
