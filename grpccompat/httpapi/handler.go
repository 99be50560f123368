package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const contentType = "application/jsonl"

// routes answers as catalogd's catalog server does (internal/catalogd/server/handlers.go):
//   - only GET and HEAD: anything else is 405 Method Not Allowed;
//   - /catalogs/NAME/...: a NAME that is no DNS-1123 subdomain is 400, another catalog's is 404;
//   - metas: a query parameter other than schema, package and name is 400 Bad Request; no
//     parameter at all is the whole catalog; values that match nothing are 200 with no body;
//   - Content-Type application/jsonl; Last-Modified, and 304 for an If-Modified-Since not before
//     it; HEAD answers the headers alone.
//
// Where catalogd has no content for a catalog yet it answers 404; olmcat, which serves one
// catalog, answers 503 with Retry-After while that catalog loads, so clients retry rather than
// conclude the catalog does not exist.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/all", s.getOnly(s.handleAll))
	mux.HandleFunc("/api/v1/metas", s.getOnly(s.handleMetas))
	mux.HandleFunc("/catalogs/{catalog}/api/v1/all", s.getOnly(s.catalog(s.handleAll)))
	mux.HandleFunc("/catalogs/{catalog}/api/v1/metas", s.getOnly(s.catalog(s.handleMetas)))
	mux.HandleFunc("/healthz", s.getOnly(s.handleHealth))
	return mux
}

func (s *Server) getOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			httpError(w, http.StatusMethodNotAllowed, "")
			return
		}
		h(w, r)
	}
}

func (s *Server) catalog(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("catalog")
		if problem := dns1123Subdomain(name); problem != "" {
			httpError(w, http.StatusBadRequest, "invalid catalog name: "+problem)
			return
		}
		if s.name != "" && name != s.name {
			httpError(w, http.StatusNotFound, "")
			return
		}
		h(w, r)
	}
}

// loaded is the store to answer from, or nil after answering 503 because there is none yet.
func (s *Server) loaded(w http.ResponseWriter) *Store {
	st := s.store.Load()
	if st == nil {
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, "503 Service Unavailable: the catalog is loading")
	}
	return st
}

func (s *Server) handleAll(w http.ResponseWriter, r *http.Request) {
	st := s.loaded(w)
	if st == nil {
		return
	}
	f, err := st.Open()
	if err != nil {
		s.log.Error("cannot open the blob store", "error", err)
		httpError(w, http.StatusInternalServerError, "")
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", contentType)
	// ServeContent is what catalogd answers /all with: Last-Modified, conditional requests, ranges,
	// Content-Length and HEAD.
	http.ServeContent(w, r, "", st.ModTime(), f)
}

func (s *Server) handleMetas(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for param := range q {
		if param != "schema" && param != "package" && param != "name" {
			httpError(w, http.StatusBadRequest, "")
			return
		}
	}
	st := s.loaded(w)
	if st == nil {
		return
	}
	w.Header().Set("Last-Modified", st.ModTime().Format(http.TimeFormat))
	if notModified(r, st.ModTime()) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	schema, pkg, name := q.Get("schema"), q.Get("package"), q.Get("name")
	if schema == "" && pkg == "" && name == "" {
		w.Header().Set("Content-Length", strconv.FormatInt(st.Size(), 10))
		if r.Method != http.MethodHead {
			bufp := copyBufs.Get().(*[]byte)
			defer copyBufs.Put(bufp)
			w.WriteHeader(http.StatusOK)
			copyBuffer(w, st.All(), *bufp)
		}
		return
	}
	m := st.Lookup(schema, pkg, name)
	w.Header().Set("Content-Length", strconv.FormatInt(m.Size, 10))
	if r.Method != http.MethodHead {
		m.WriteTo(w) // an error here is the client going away; the status is already sent
	}
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if !s.serving.Load() {
		httpError(w, http.StatusServiceUnavailable, "NOT_SERVING")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "SERVING")
}

// notModified is catalogd's check for metas: If-Modified-Since, to the second.
func notModified(r *http.Request, modTime time.Time) bool {
	t, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && modTime.Before(t.Add(time.Second))
}

// httpError answers as catalogd does: the status code and text as the body, unless msg says more.
func httpError(w http.ResponseWriter, code int, msg string) {
	if msg == "" {
		msg = fmt.Sprintf("%d %s", code, http.StatusText(code))
	}
	if code == http.StatusMethodNotAllowed {
		msg = http.StatusText(code)
	}
	http.Error(w, msg, code)
}

// CheckCatalogName checks a catalog name as catalogd does: it must be a DNS-1123 subdomain.
func CheckCatalogName(name string) error {
	if problem := dns1123Subdomain(name); problem != "" {
		return fmt.Errorf("invalid catalog name %q: %s", name, problem)
	}
	return nil
}

// dns1123Subdomain is what catalogd checks a catalog name with (a Kubernetes object name): "" if
// valid, else why not.
func dns1123Subdomain(name string) string {
	if len(name) > 253 {
		return "must be no more than 253 characters"
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || !alnum(label[0]) || !alnum(label[len(label)-1]) {
			return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
		}
		for i := 0; i < len(label); i++ {
			if !alnum(label[i]) && label[i] != '-' {
				return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
			}
		}
	}
	return ""
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
