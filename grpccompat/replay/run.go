package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
)

type structpbStruct = structpb.Struct

// Options tune a replay.
type Options struct {
	// Experimental registers api.ExperimentalRegistry, as opm serve does (opm registry serve not).
	Experimental bool
	// Skip reports, for a call, why it is not compared ("" compares it).
	Skip func(c Call) string
	// UnorderedBundleLists compares each bundle's properties, dependencies and provided and
	// required APIs as multisets: for indexes opm upgraded from schemas before 9, their row order
	// came from Go map iteration in opm's migrations, random from run to run.
	UnorderedBundleLists bool
}

// Serve starts an in-memory gRPC server over b and returns a client connection to it.
func Serve(t testing.TB, b api.Backend, experimental bool) *grpc.ClientConn {
	t.Helper()
	srv := grpccompat.NewServer(grpccompat.ServerOptions{Experimental: experimental})
	srv.SetBackend(b)
	lis := bufconn.Listen(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis, 5*time.Second) }()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		t.Fatalf("dial in-memory server: %v", err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		<-done
	})
	return conn
}

// Run replays every call of the recording at dir against b and reports each answer that differs
// from opm's: code, message, and the response compared as JSON (streams as multisets).
func Run(t *testing.T, b api.Backend, dir string, o Options) {
	t.Helper()
	RunConn(t, Serve(t, b, o.Experimental), dir, o)
}

// RunConn is Run against a server already listening (e.g. an olmcat serve process).
func RunConn(t *testing.T, conn *grpc.ClientConn, dir string, o Options) {
	t.Helper()
	rec, err := Load(dir)
	if err != nil {
		t.Fatalf("load recording: %v", err)
	}
	ctx := context.Background()
	failures := 0
	for _, c := range rec.Plan {
		if o.Skip != nil {
			if why := o.Skip(c); why != "" {
				continue
			}
		}
		got, err := Invoke(ctx, conn, c)
		if err != nil {
			t.Fatalf("call %s %s: %v", c.ID, c.Method, err)
		}
		want := rec.Answers[c.ID]
		if diff := compare(c, want, got, rec.AnyOf[c.ID], o.UnorderedBundleLists); diff != "" {
			failures++
			if failures <= 15 {
				t.Errorf("call %s %s %s differs from opm (-opm +olmcat):\n%s", c.ID, c.Method, c.Request, truncate(diff, 3000))
			}
		}
	}
	if failures > 15 {
		t.Errorf("... %d differing calls in all (of %d)", failures, len(rec.Plan))
	}
}

func compare(c Call, want, got Answer, anyOf []string, unordered bool) string {
	if want.Code != got.Code || want.Message != got.Message {
		return cmp.Diff(want.Code+": "+want.Message, got.Code+": "+got.Message)
	}
	if len(anyOf) > 0 && got.Code == "OK" && csvNameOf(got.Response) != csvNameOf(want.Response) {
		// opm may answer any bundle that replaces or skips the name; only the recorded one can be
		// compared field by field.
		for _, v := range anyOf {
			if v == csvNameOf(got.Response) {
				return ""
			}
		}
		return "csvName " + csvNameOf(got.Response) + " is not one of " + strings.Join(anyOf, ", ")
	}
	stream := streaming[c.Method]
	w, err := normalize(want.Response, stream)
	if err != nil {
		return "recorded response: " + err.Error()
	}
	g, err := normalize(got.Response, stream)
	if err != nil {
		return "response: " + err.Error()
	}
	if unordered {
		sortBundleLists(w)
		sortBundleLists(g)
	}
	return cmp.Diff(w, g)
}

// sortBundleLists sorts, in every bundle of an answer, the lists whose order opm did not fix.
func sortBundleLists(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			sortBundleLists(e)
		}
	case map[string]any:
		for _, k := range []string{"properties", "dependencies", "providedApis", "requiredApis"} {
			if list, ok := x[k].([]any); ok {
				sort.Slice(list, func(i, j int) bool { return canonical(list[i]) < canonical(list[j]) })
			}
		}
	}
}

func csvNameOf(resp json.RawMessage) string {
	var b struct {
		CsvName string `json:"csvName"`
	}
	_ = json.Unmarshal(resp, &b)
	return b.CsvName
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n... (truncated)"
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
