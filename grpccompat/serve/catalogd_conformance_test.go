package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// The recorded corpus of catalogd's answers (../shared/conformance/catalogd; its README gives the
// format and the rules).
type catalogdRequest struct {
	ID, Label, Method, Path string
	Headers                 [][2]string
}

type catalogdAnswer struct {
	ID, Label       string
	Status          int
	Headers         [][2]string
	ContentEncoding *string `json:"content_encoding"`
	BodyFile        *string `json:"body_file"`
	BodyLength      int     `json:"body_length"`
	BodySHA256      string  `json:"body_sha256"`
	Normative       *bool
}

// olmcatExtensions are the paths where olmcat answers and catalogd does not (README "Serving
// OLM v1"): the unprefixed routes, the probes and /metrics.
func olmcatExtension(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/livez", "/metrics":
		return true
	}
	return strings.HasPrefix(path, "/api/v1/")
}

// TestCatalogdConformance replays every recorded request to catalogd against `olmcat serve
// --http-addr` on a real listener, byte for byte as recorded, and compares the status, every
// header (Date, Last-Modified and compressed lengths as the corpus normalizes them) and the
// decoded body. The answers that record a catalogd bug (normative: false) must instead equal the
// answer to the same request without the offending header. Catalogs are served with gRPC (the
// HTTP store is fed by the backend's walk) and without (the store walks the catalog itself).
func TestCatalogdConformance(t *testing.T) {
	root := needCorpus(t, "catalogd")
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "requests.json"))
	if len(dirs) == 0 {
		t.Fatal("no catalogd recordings found")
	}
	for i, reqFile := range dirs {
		dir := filepath.Dir(reqFile)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			var recorded struct {
				Source   struct{ Dir string }
				Requests []catalogdRequest
			}
			readJSON(t, reqFile, &recorded)
			catalog := filepath.Join(root, recorded.Source.Dir)
			if name == "edge-quirks" {
				// Not valid FBC (README (d)): olmcat refuses it, as opm validate does.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				served := false
				err := Run(ctx, Options{Path: catalog, HTTPOnly: true, HTTPAddr: "127.0.0.1:0",
					HTTPReady: func(net.Addr) { served = true; cancel() }})
				if served || err == nil {
					t.Errorf("edge-quirks served (%v); want it refused as invalid FBC", err)
				}
				return
			}
			base, _, stop := runHTTP(t, Options{Path: catalog, HTTPOnly: i%2 == 1, HTTPCatalogName: "test-catalog"})
			defer stop()
			addr := strings.TrimPrefix(base, "http://")
			lm := exchange(t, addr, catalogdRequest{Method: "GET", Path: "/catalogs/test-catalog/api/v1/all"}, "").Header.Get("Last-Modified")
			placeholders := lastModifiedPlaceholders(t, lm)
			byID := map[string]catalogdRequest{}
			for _, r := range recorded.Requests {
				byID[r.ID] = r
			}
			for _, r := range recorded.Requests {
				var want catalogdAnswer
				readJSON(t, filepath.Join(dir, "answers", r.ID+".json"), &want)
				for j := range r.Headers {
					r.Headers[j][1] = placeholders.Replace(r.Headers[j][1])
				}
				if olmcatExtension(r.Path) {
					if got := exchange(t, addr, r, ""); r.Method == "GET" && got.StatusCode != http.StatusOK {
						t.Errorf("%s %s (olmcat extension): %s, want 200", r.ID, r.Label, got.Status)
					}
					continue
				}
				if want.Normative != nil && !*want.Normative {
					fixed, ok := withoutBadDate(r, recorded.Requests)
					if !ok {
						t.Fatalf("%s %s: no request to compare the non-normative answer with", r.ID, r.Label)
					}
					readJSON(t, filepath.Join(dir, "answers", fixed.ID+".json"), &want)
				}
				compareAnswer(t, dir, addr, r, want, lm)
			}
		})
	}
}

// withoutBadDate finds the request equal to r but for its unparseable If-Modified-Since.
func withoutBadDate(r catalogdRequest, all []catalogdRequest) (catalogdRequest, bool) {
	var rest [][2]string
	for _, h := range r.Headers {
		if h[0] != "If-Modified-Since" {
			rest = append(rest, h)
		}
	}
	for _, o := range all {
		if o.Method == r.Method && o.Path == r.Path && slices.Equal(o.Headers, rest) {
			return o, true
		}
	}
	return catalogdRequest{}, false
}

func lastModifiedPlaceholders(t *testing.T, lm string) *strings.Replacer {
	t.Helper()
	at, err := http.ParseTime(lm)
	if err != nil {
		t.Fatalf("GET all: Last-Modified %q: %v", lm, err)
	}
	return strings.NewReplacer("{LM}", lm,
		"{LM-1s}", at.Add(-time.Second).Format(http.TimeFormat),
		"{LM+1s}", at.Add(time.Second).Format(http.TimeFormat),
		"{LM:rfc850}", at.Format(time.RFC850),
		"{LM:asctime}", at.Format(time.ANSIC))
}

type wireAnswer struct {
	*http.Response
	body []byte // decoded
}

// exchange sends r on a fresh connection exactly as the recorder did and reads the answer.
func exchange(t *testing.T, addr string, r catalogdRequest, label string) wireAnswer {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	var req bytes.Buffer
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: localhost\r\n", r.Method, r.Path)
	for _, h := range r.Headers {
		fmt.Fprintf(&req, "%s: %s\r\n", h[0], h[1])
	}
	req.WriteString("\r\n")
	if _, err := conn.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: r.Method})
	if err != nil {
		t.Fatalf("%s %s: %v", r.ID, label, err)
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	switch resp.Header.Get("Content-Encoding") {
	case "gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", r.ID, r.Label, err)
		}
		body = zr
	case "zstd":
		zr, err := zstd.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", r.ID, r.Label, err)
	}
	return wireAnswer{resp, data}
}

// compareAnswer checks status, headers and body of r's answer against want.
func compareAnswer(t *testing.T, dir, addr string, r catalogdRequest, want catalogdAnswer, lm string) {
	t.Helper()
	got := exchange(t, addr, r, r.Label)
	what := fmt.Sprintf("%s %s (%s %s %v)", r.ID, r.Label, r.Method, r.Path, r.Headers)
	if got.StatusCode != want.Status {
		t.Errorf("%s: status %d, want %d", what, got.StatusCode, want.Status)
		return
	}
	compressed := want.ContentEncoding != nil
	boundary := ""
	if _, params, err := mime.ParseMediaType(got.Header.Get("Content-Type")); err == nil {
		boundary = params["boundary"]
	}
	var gotHeaders []string
	for k, vs := range got.Header {
		for _, v := range vs {
			gotHeaders = append(gotHeaders, k+": "+normalizeHeader(k, v, lm, boundary, compressed))
		}
	}
	if slices.Contains(got.TransferEncoding, "chunked") && !compressed {
		gotHeaders = append(gotHeaders, "Transfer-Encoding: chunked")
	}
	var wantHeaders []string
	for _, h := range want.Headers {
		if compressed && h[0] == "Transfer-Encoding" {
			continue // the framing of a compressed answer is not normative
		}
		wantHeaders = append(wantHeaders, h[0]+": "+normalizeHeader(h[0], h[1], lm, boundary, compressed))
	}
	if want.Status == http.StatusMethodNotAllowed && !slices.Contains(wantHeaders, "Allow: GET, HEAD") {
		// The one header a correct server adds (RFC 9110 §15.5.6); catalogd omits it.
		wantHeaders = append(wantHeaders, "Allow: GET, HEAD")
	}
	slices.Sort(gotHeaders)
	slices.Sort(wantHeaders)
	if !slices.Equal(gotHeaders, wantHeaders) {
		t.Errorf("%s: headers\n got %q\nwant %q", what, gotHeaders, wantHeaders)
	}
	body := got.body
	if boundary != "" {
		body = bytes.ReplaceAll(body, []byte(boundary), []byte("<BOUNDARY>"))
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != want.BodySHA256 {
		t.Errorf("%s: body of %d bytes differs from catalogd's %d bytes%s", what, len(body), want.BodyLength, firstDifference(t, dir, want, body))
	}
}

// normalizeHeader applies the corpus's normalizations to one header value.
func normalizeHeader(name, value, lm, boundary string, compressed bool) string {
	switch {
	case name == "Date":
		return "<DATE>"
	case name == "Last-Modified" && value == lm:
		return "<LAST-MODIFIED>"
	case name == "Content-Length" && compressed:
		return "<COMPRESSED-LENGTH>"
	case boundary != "":
		return strings.ReplaceAll(value, boundary, "<BOUNDARY>")
	}
	return value
}

func firstDifference(t *testing.T, dir string, want catalogdAnswer, got []byte) string {
	if want.BodyFile == nil {
		return fmt.Sprintf(": got %.200q, want empty", got)
	}
	f, err := os.Open(filepath.Join(dir, *want.BodyFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(*want.BodyFile, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	exp, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for i < len(got) && i < len(exp) && got[i] == exp[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf(" at byte %d:\n got %q\nwant %q", i, got[from:min(len(got), i+80)], exp[from:min(len(exp), i+80)])
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
