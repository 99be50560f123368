package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

const contentType = "application/jsonl"

// routes answers as catalogd's catalog server does (internal/catalogd/server/handlers.go, with
// its APIV1MetasHandler feature gate on unless Options.DisableMetas):
//   - only GET and HEAD on the API routes: anything else is 405 Method Not Allowed (olmcat adds
//     the Allow header RFC 9110 requires; catalogd sends none);
//   - /catalogs/NAME/...: a NAME that is no DNS-1123 subdomain is 400, another catalog's is 404;
//   - all: http.ServeContent, so Last-Modified, every conditional request, ranges and HEAD;
//   - metas: a query parameter other than schema, package and name is 400 Bad Request; no
//     parameter at all is the whole catalog; values that match nothing are 200 with no body;
//     conditional requests as ServeContent's; no ranges, no Content-Length but for small
//     answers (net/http's own, under 2 KiB).
//
// Where catalogd has no content for a catalog yet it answers 404; olmcat, which serves one
// catalog, answers 503 with Retry-After while that catalog loads, so clients retry rather than
// conclude the catalog does not exist. Unprefixed /api/v1/... routes and the probes are olmcat's:
// /healthz and /readyz (readiness: 200 once the catalog is served, 503 while it loads or the
// server drains, as gRPC health), /livez (liveness: 200 whenever the server answers, so that a
// long load does not get the pod restarted).
func (s *Server) routes(metrics http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	for _, prefix := range []string{"", "/catalogs/{catalog}"} {
		mux.HandleFunc(prefix+"/api/v1/all", s.getOnly(s.handleAll))
		if !s.noMetas {
			mux.HandleFunc(prefix+"/api/v1/metas", s.getOnly(s.handleMetas))
		}
	}
	mux.HandleFunc("/healthz", s.getOnly(s.handleHealth))
	mux.HandleFunc("/readyz", s.getOnly(s.handleHealth))
	mux.HandleFunc("/livez", s.getOnly(handleLive))
	if metrics != nil {
		mux.Handle("/metrics", metrics)
	}
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

// validName answers 400 for a catalog name catalogd would refuse; true when the request goes on.
func validName(w http.ResponseWriter, r *http.Request) bool {
	if strings.HasPrefix(r.Pattern, "/catalogs/") {
		if problem := dns1123Subdomain(r.PathValue("catalog")); problem != "" {
			httpError(w, http.StatusBadRequest, "invalid catalog name: "+problem)
			return false
		}
	}
	return true
}

// catalog is the store to answer from, or nil after answering 404 (another catalog's name) or
// 503 (none loaded yet).
func (s *Server) catalog(w http.ResponseWriter, r *http.Request) *Store {
	if name := r.PathValue("catalog"); name != "" && s.name != "" && name != s.name {
		httpError(w, http.StatusNotFound, "")
		return nil
	}
	st := s.store.Load()
	if st == nil {
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, "503 Service Unavailable: the catalog is loading")
	}
	return st
}

func (s *Server) handleAll(w http.ResponseWriter, r *http.Request) {
	if !validName(w, r) {
		return
	}
	st := s.catalog(w, r)
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
	http.ServeContent(w, r, "", st.ModTime(), f)
}

func (s *Server) handleMetas(w http.ResponseWriter, r *http.Request) {
	if !validName(w, r) {
		return
	}
	q := r.URL.Query() // pairs url.ParseQuery rejects (";", bad escapes) are dropped, as in catalogd
	for param := range q {
		if param != "schema" && param != "package" && param != "name" {
			httpError(w, http.StatusBadRequest, "")
			return
		}
	}
	st := s.catalog(w, r)
	if st == nil {
		return
	}
	w.Header().Set("Last-Modified", st.ModTime().UTC().Format(http.TimeFormat))
	if preconditionsDone(w, r, st.ModTime()) {
		return
	}
	w.Header().Set("Content-Type", contentType)
	if r.Method == http.MethodHead {
		return
	}
	schema, pkg, name := q.Get("schema"), q.Get("package"), q.Get("name")
	if schema == "" && pkg == "" && name == "" {
		bufp := copyBufs.Get().(*[]byte)
		defer copyBufs.Put(bufp)
		copyBuffer(w, st.All(), *bufp) // an error here is the client going away
		return
	}
	st.Lookup(schema, pkg, name).WriteTo(w)
}

// preconditionsDone evaluates a /metas request's conditional headers in RFC 9110's order, as
// http.ServeContent does for /all, and answers 412 or 304 when they say so. Where catalogd's own
// copy of these checks answers 500 to an unparseable If-Modified-Since (and then sends the body
// anyway), olmcat ignores the header, as the RFC says and as /all does.
func preconditionsDone(w http.ResponseWriter, r *http.Request, modTime time.Time) bool {
	modTime = modTime.Truncate(time.Second)
	failed := false
	if im := r.Header.Get("If-Match"); im != "" {
		failed = !listsAny(im) // the API has no entity tags: only * matches
	} else if t, err := http.ParseTime(r.Header.Get("If-Unmodified-Since")); err == nil {
		failed = modTime.After(t)
	}
	if failed {
		w.WriteHeader(http.StatusPreconditionFailed)
		return true
	}
	getOrHead := r.Method == http.MethodGet || r.Method == http.MethodHead
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if listsAny(inm) {
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	} else if t, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && getOrHead && !modTime.After(t) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

// listsAny reports whether an If-Match or If-None-Match list holds "*".
func listsAny(list string) bool {
	for _, tag := range strings.Split(list, ",") {
		if strings.TrimSpace(tag) == "*" {
			return true
		}
	}
	return false
}

func handleLive(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if s.store.Load() == nil || s.draining.Load() || (s.serving != nil && !s.serving()) {
		httpError(w, http.StatusServiceUnavailable, "NOT_SERVING")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "SERVING")
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

// dns1123Subdomain is what catalogd checks a catalog name with (a Kubernetes object name,
// k8s.io/apimachinery's IsDNS1123Subdomain): "" if valid, else its messages joined by "; ".
func dns1123Subdomain(name string) string {
	var problems []string
	if len(name) > 253 {
		problems = append(problems, "must be no more than 253 characters")
	}
	if !isDNS1123Subdomain(name) {
		problems = append(problems, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "+
			"and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "+
			"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
	}
	return strings.Join(problems, "; ")
}

// isDNS1123Subdomain matches [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
func isDNS1123Subdomain(name string) bool {
	for _, label := range strings.Split(name, ".") {
		if label == "" || !alnum(label[0]) || !alnum(label[len(label)-1]) {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !alnum(label[i]) && label[i] != '-' {
				return false
			}
		}
	}
	return true
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
