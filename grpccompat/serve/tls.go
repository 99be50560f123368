package serve

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/olmcat/olmcat/internal/nofollow"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TLSError is a certificate or key that cannot serve HTTPS: unreadable, not PEM, or not a pair.
type TLSError struct {
	File string // the file at fault; for a pair that does not match, the key
	Err  error
}

func (e *TLSError) Error() string { return e.Err.Error() }
func (e *TLSError) Unwrap() error { return e.Err }

// certReloader gives every TLS handshake the certificate of certFile and keyFile as they are now:
// when either file has changed since the last handshake (another file under the name, as a
// Kubernetes secret volume or cert-manager swaps it, or a new size or modification time), the pair
// is read again. A pair that cannot be read or does not match is logged once and the previous
// certificate is served until the files change again, as controller-runtime's certwatcher (which
// catalogd uses) does. Checking is two stats a handshake: no watcher goroutine, nothing to stop.
type certReloader struct {
	certFile, keyFile string
	log               *slog.Logger

	mu                sync.Mutex
	cert              *tls.Certificate
	certStat, keyStat os.FileInfo // of the pair last read, whether it loaded or not
	problem           string      // why the pair last read did not load ("" = it did)

	reads, readErrors prometheus.Counter
	notAfter          prometheus.Gauge
}

// newCertReloader reads the pair once: an error here means HTTPS cannot start.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: log,
		reads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "olmcat_tls_certificate_reads_total",
			Help: "Times the --http-tls-cert and --http-tls-key pair was read and loaded (at start and when the files changed).",
		}),
		readErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "olmcat_tls_certificate_read_errors_total",
			Help: "Times the changed --http-tls-cert and --http-tls-key pair could not be loaded; the previous certificate was kept.",
		}),
		notAfter: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "olmcat_tls_certificate_expiry_timestamp_seconds",
			Help: "When the TLS certificate being served expires (its NotAfter), in seconds since the Unix epoch.",
		}),
	}
	certStat, keyStat, err := r.stat()
	if err != nil {
		return nil, err
	}
	cert, err := loadKeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	r.cert, r.certStat, r.keyStat = cert, certStat, keyStat
	r.loaded()
	log.Info("serving HTTPS", "file", certFile, "subject", cert.Leaf.Subject.String(), "not-after", cert.Leaf.NotAfter)
	if leaf := cert.Leaf; time.Now().After(leaf.NotAfter) {
		log.Warn("the TLS certificate has expired; clients will refuse it until it is renewed", "file", certFile, "not-after", leaf.NotAfter)
	}
	return r, nil
}

func (r *certReloader) stat() (certStat, keyStat os.FileInfo, err error) {
	if certStat, err = os.Stat(r.certFile); err != nil {
		return nil, nil, &TLSError{File: r.certFile, Err: fmt.Errorf("TLS certificate: %w", err)}
	}
	if keyStat, err = os.Stat(r.keyFile); err != nil {
		return nil, nil, &TLSError{File: r.keyFile, Err: fmt.Errorf("TLS key: %w", err)}
	}
	return certStat, keyStat, nil
}

// tlsConfig serves HTTP/1.1 only, as catalogd does (it turns HTTP/2 off against the stream
// cancellation and rapid reset attacks); TLS 1.2 at least, Go's default cipher suites.
func (r *certReloader) tlsConfig() *tls.Config {
	return &tls.Config{
		GetCertificate: r.getCertificate,
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
	}
}

func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	certStat, keyStat, err := r.stat()
	if err != nil { // mid-swap, or gone: serve what we have, look again next handshake
		r.report(err.Error())
		return r.cert, nil
	}
	if sameFile(certStat, r.certStat) && sameFile(keyStat, r.keyStat) {
		return r.cert, nil
	}
	r.certStat, r.keyStat = certStat, keyStat
	cert, err := loadKeyPair(r.certFile, r.keyFile)
	if err != nil {
		r.readErrors.Inc()
		r.report(err.Error())
		return r.cert, nil
	}
	r.cert, r.problem = cert, ""
	r.loaded()
	r.log.Info("reloaded the TLS certificate", "file", r.certFile, "subject", cert.Leaf.Subject.String(), "not-after", cert.Leaf.NotAfter)
	return r.cert, nil
}

func (r *certReloader) loaded() {
	r.reads.Inc()
	r.notAfter.Set(float64(r.cert.Leaf.NotAfter.Unix()))
}

// collectors are the reloader's metrics.
func (r *certReloader) collectors() []prometheus.Collector {
	return []prometheus.Collector{r.reads, r.readErrors, r.notAfter}
}

// report logs a reload that failed, once for as long as it fails the same way.
func (r *certReloader) report(problem string) {
	if problem != r.problem {
		r.problem = problem
		r.log.Warn("cannot reload the TLS certificate; serving the previous one until the files change", "error", problem)
	}
}

func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// loadKeyPair reads a PEM certificate (chain) and its private key, and says which file is at fault
// when they cannot serve.
func loadKeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	certPEM, err := readPEMFile(certFile, "TLS certificate", "the PEM certificate, e.g. a secret's tls.crt")
	if err != nil {
		return nil, err
	}
	keyPEM, err := readPEMFile(keyFile, "TLS key", "the PEM private key, e.g. a secret's tls.key")
	if err != nil {
		return nil, err
	}
	if err := checkCertificatePEM(certPEM); err != nil {
		return nil, &TLSError{File: certFile, Err: fmt.Errorf("TLS certificate %s: %w (give the PEM certificate, e.g. a secret's tls.crt)", certFile, err)}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		if strings.Contains(err.Error(), "does not match") {
			return nil, &TLSError{File: keyFile, Err: fmt.Errorf("TLS key %s does not match the certificate %s: give the key the certificate was issued for", keyFile, certFile)}
		}
		return nil, &TLSError{File: keyFile, Err: fmt.Errorf("TLS key %s: %w (give the PEM private key, e.g. a secret's tls.key)", keyFile, err)}
	}
	return &cert, nil // tls.X509KeyPair sets Leaf
}

// checkCertificatePEM is the certificate half of tls.X509KeyPair's checks, so that its errors name
// the certificate file rather than the key.
func checkCertificatePEM(data []byte) error {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return errors.New("no PEM CERTIFICATE block")
		}
		if block.Type == "CERTIFICATE" {
			_, err := x509.ParseCertificate(block.Bytes)
			return err
		}
	}
}

// maxPEMFileSize bounds a certificate (chain) or key file: a chain of a dozen certificates is
// tens of kB.
const maxPEMFileSize = 1 << 20

// readPEMFile reads a certificate or key file as a regular file of at most maxPEMFileSize bytes.
// Links are followed (a Kubernetes secret volume's tls.crt is a link through ..data), but a FIFO
// or a device is never read: a certificate swapped for /dev/zero took 14 GB, and a FIFO blocked
// the handshake that read it and every later one (issue 27.1). The file is opened without
// blocking and checked again once open, in case it was swapped in between.
func readPEMFile(path, what, give string) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return &TLSError{File: path, Err: fmt.Errorf("%s %s "+format+": give %s", append([]any{what, path}, append(args, give)...)...)}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, &TLSError{File: path, Err: fmt.Errorf("%s: %w", what, err)}
	}
	if !st.Mode().IsRegular() {
		return nil, fail("is %s, not a regular file", nofollow.Describe(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &TLSError{File: path, Err: fmt.Errorf("%s: %w", what, err)}
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, &TLSError{File: path, Err: fmt.Errorf("%s: %w", what, err)}
	}
	if !st.Mode().IsRegular() {
		return nil, fail("is %s, not a regular file", nofollow.Describe(st.Mode()))
	}
	if st.Size() > maxPEMFileSize {
		return nil, fail("is %d bytes, more than the %d a PEM file can be here", st.Size(), maxPEMFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPEMFileSize+1))
	if err != nil {
		return nil, &TLSError{File: path, Err: fmt.Errorf("%s: %w", what, err)}
	}
	if len(data) > maxPEMFileSize {
		return nil, fail("grew over %d bytes while it was read", maxPEMFileSize)
	}
	return data, nil
}
