// Command loadtest measures the HTTP server's prune throughput and latency over loopback:
// POST /rpc tools/call prune_text with texts of 200 and 5,000 lines at 1, 8 and 32 concurrent
// clients, each cell bounded in time and in request count, and prints a Markdown table.
//
//	go run ./server/loadtest                          # in-process server, pruner serve's default scorers
//	go run ./server/loadtest -url http://127.0.0.1:8006/rpc   # an already running pruner serve
//
// By default each client sends its next request as soon as the last one is answered (a closed
// loop): req/s is the server's throughput, and p50/p99 are mostly queueing, since 32 clients
// wait on two cores. With -rate, requests are due at a fixed total rate whatever the server
// does (an open loop, as wrk2 and vegeta send), and each latency runs from the request's due
// time, so a server that falls behind is charged for the wait as well:
//
//	go run ./server/loadtest -lines 200 -clients 32 -rate 2000   # p99 at 2,000 prunes/s
//
// Every non-200 answer, JSON-RPC error or fail-open result (used_fallback) counts as an error.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/structural"
	"github.com/mcp-pruner/mcp-pruner/server"
	"github.com/mcp-pruner/mcp-pruner/server/gcfloor"
	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

func main() {
	var (
		url         = flag.String("url", "", "POST /rpc URL of a running server; empty starts one in-process on 127.0.0.1:0")
		linesFlag   = flag.String("lines", "200,5000", "text sizes in lines, comma-separated")
		clientsFlag = flag.String("clients", "1,8,32", "concurrent clients, comma-separated")
		duration    = flag.Duration("duration", 3*time.Second, "time budget of each cell: no request starts after it (with -rate, none is due after it)")
		maxRequests = flag.Int("max-requests", 20000, "request budget of each cell")
		warmup      = flag.Int("warmup", 20, "unmeasured requests before each cell")
		cpuProfile  = flag.String("cpuprofile", "", "write a CPU profile of the whole run (client and in-process server) to this file")
		memProfile  = flag.String("memprofile", "", "write an allocation profile of the whole run (client and in-process server) to this file at its end; go tool pprof -sample_index=alloc_space reads what was allocated")
		latFile     = flag.String("latencies", "", "append every measured request to this CSV file: lines,clients,start_ms,latency_ms (start relative to the cell's start), to see whether slow requests cluster in time")
		rate        = flag.Float64("rate", 0, "requests per second, all clients together, each due at its time and its latency counted from then (an open loop); 0 sends each client's next request when its last is answered (a closed loop)")
		distinct    = flag.Bool("distinct", false, "make every request's text unique (a request number in its first line), so neither the recovery store nor the scorers' caches see a text twice; by default every request sends the same text, as an agent re-reading one file does")
	)
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		defer writeHeapProfile(*memProfile)
	}
	if !strings.HasPrefix(*url, "http://127.") && !strings.HasPrefix(*url, "http://localhost") && *url != "" {
		fmt.Fprintln(os.Stderr, "loadtest: -url must be a loopback http:// URL")
		os.Exit(2)
	}
	target := *url
	if target == "" {
		stop, addr, err := startInProcess()
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		defer stop()
		target = "http://" + addr + "/rpc"
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}

	if *rate < 0 {
		fmt.Fprintln(os.Stderr, "loadtest: -rate must be 0 or more")
		os.Exit(2)
	}
	fmt.Printf("target %s, GOMAXPROCS %d, %s/%s, %s\n", target, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	if *rate > 0 {
		fmt.Printf("open loop: %.0f requests/s due, latencies from each request's due time\n", *rate)
	} else {
		fmt.Println("closed loop: each client sends its next request when its last is answered")
	}
	fmt.Println()
	fmt.Println("| lines | clients | requests | req/s | p50 ms | p99 ms | max ms | errors |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	var latOut io.Writer
	if *latFile != "" {
		f, err := os.OpenFile(*latFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		defer f.Close()
		latOut = f
	}
	failed := false
	for _, n := range ints(*linesFlag) {
		body := requestBody(n)
		for _, c := range ints(*clientsFlag) {
			var buf bytes.Buffer
			for range *warmup {
				oneRequest(client, target, body, &buf)
			}
			r := runCell(client, target, body, cell{distinct: *distinct, clients: c, rate: *rate, budget: *duration, maxReq: *maxRequests})
			fmt.Printf("| %d | %d | %d | %.0f | %.2f | %.2f | %.2f | %d |\n", n, c, r.count, r.rps, ms(r.p50), ms(r.p99), ms(r.max), r.errors)
			if latOut != nil {
				writeSamples(latOut, n, c, r.samples)
			}
			if r.errors > 0 {
				failed = true
				fmt.Fprintln(os.Stderr, "first error:", r.firstErr)
			}
		}
	}
	if failed {
		pprof.StopCPUProfile()
		if *memProfile != "" {
			writeHeapProfile(*memProfile)
		}
		os.Exit(1)
	}
}

// writeHeapProfile writes the allocation profile to path, or says why it cannot.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest: memprofile:", err)
	}
}

type cellResult struct {
	count, errors int
	rps           float64
	p50, p99, max time.Duration
	firstErr      string
	samples       []sample // in completion order per client, not sorted
}

// sample is one measured request: when it started (since the cell's start) and how long it took.
type sample struct{ start, latency time.Duration }

func writeSamples(w io.Writer, lines, clients int, samples []sample) {
	var b bytes.Buffer
	for _, s := range samples {
		fmt.Fprintf(&b, "%d,%d,%.3f,%.3f\n", lines, clients, float64(s.start.Microseconds())/1000, ms(s.latency))
	}
	w.Write(b.Bytes())
}

// cell is one measurement's load.
type cell struct {
	distinct bool          // each request writes its number into the body's requestSlot first
	clients  int           // concurrent clients
	rate     float64       // requests due per second (open loop), or 0 (closed loop)
	budget   time.Duration // no request starts (or, with rate, is due) after this
	maxReq   int
}

// due returns when request k (from 1) is due in an open loop that starts at start.
func (c cell) due(start time.Time, k int64) time.Time {
	return start.Add(time.Duration(float64(k-1) / c.rate * float64(time.Second)))
}

// runCell sends body from c.clients concurrent clients until c.budget or c.maxReq runs out.
func runCell(client *http.Client, url string, body []byte, c cell) cellResult {
	var (
		issued   atomic.Int64
		mu       sync.Mutex
		samples  []sample
		errs     int
		firstErr string
		wg       sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(c.budget)
	for range c.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]sample, 0, 1024)
			localErrs, localFirst := 0, ""
			var buf bytes.Buffer
			own, slot := body, -1
			if c.distinct {
				own = slices.Clone(body)
				slot = bytes.Index(own, []byte(requestSlot))
			}
			// An open loop sends every request due before the deadline, however late: one
			// that stopped at the deadline would leave a slow server's backlog unmeasured.
			for c.rate > 0 || time.Now().Before(deadline) {
				k := issued.Add(1)
				if k > int64(c.maxReq) {
					break
				}
				if slot >= 0 {
					putDigits(own[slot:slot+len(requestSlot)], k)
				}
				t0 := time.Now()
				if c.rate > 0 {
					due := c.due(start, k)
					if !due.Before(deadline) {
						break
					}
					if wait := time.Until(due); wait > 0 {
						time.Sleep(wait)
					}
					t0 = due // a request sent late, all clients busy, waited for the server
				}
				err := oneRequest(client, url, own, &buf)
				local = append(local, sample{start: t0.Sub(start), latency: time.Since(t0)})
				if err != nil {
					localErrs++
					if localFirst == "" {
						localFirst = err.Error()
					}
				}
			}
			mu.Lock()
			samples = append(samples, local...)
			errs += localErrs
			if firstErr == "" {
				firstErr = localFirst
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	lat := make([]time.Duration, len(samples))
	for i, s := range samples {
		lat[i] = s.latency
	}
	slices.Sort(lat)
	r := cellResult{count: len(lat), errors: errs, firstErr: firstErr, rps: float64(len(lat)) / elapsed.Seconds(), samples: samples}
	if len(lat) > 0 {
		r.p50 = lat[len(lat)*50/100]
		r.p99 = lat[min(len(lat)-1, len(lat)*99/100)]
		r.max = lat[len(lat)-1]
	}
	return r
}

// oneRequest sends one prune and checks the answer is a successful, non-fallback result.
// The answer is read into buf, reused by the caller: a fresh buffer per answer made the
// load generator collect garbage ~100 times a second, and its stop-the-world pauses, on a
// machine it shares with the server, were counted as the server's latency.
func oneRequest(client *http.Client, url string, body []byte, buf *bytes.Buffer) error {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	return answerError(resp.StatusCode, buf.Bytes())
}

// answerError returns why an answer b with HTTP status is not a successful prune that
// returned its text pruned (not a fail-open result), or nil.
func answerError(status int, b []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", status, b)
	}
	// Byte checks rather than a full decode: the load generator shares the machine's cores
	// with the server, and decoding every answer would measure the client.
	if !bytes.HasPrefix(b, []byte(`{"jsonrpc":"2.0","id":1,"result":{`)) {
		return fmt.Errorf("not a result: %.200s", b)
	}
	// From the end: the stats are near the end of the answer's structuredContent, and a
	// forward search for a pattern that starts with '"' stops at every quote of the JSON
	// (it took a twentieth of the machine's CPU at 200 lines and 32 clients). Inside the
	// escaped copy of the payload the key reads \"used_fallback\", which does not match.
	const key = `"used_fallback":`
	i := bytes.LastIndex(b, []byte(key))
	if i < 0 || !bytes.HasPrefix(b[i+len(key):], []byte("false")) {
		w := bytes.LastIndex(b, []byte(`"warnings":`))
		return fmt.Errorf("fail-open result: %.60s", b[max(w, 0):])
	}
	return nil
}

// putDigits writes k into dst as zero-padded decimal digits, without allocating: the
// clients reuse their buffers so the load generator's own garbage collection stays out of
// the latencies.
func putDigits(dst []byte, k int64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + k%10)
		k /= 10
	}
}

// requestSlot is where a -distinct request writes its number: the digits of the text's first
// line, a comment.
const requestSlot = "000000000000"

// requestBody is a prune_text call on n lines of Go-like code with the seed's example
// options (annotated, with markers).
func requestBody(n int) []byte {
	var b strings.Builder
	b.WriteString("// request " + requestSlot + "\npackage server\n\nimport (\n\t\"context\"\n\t\"net/http\"\n)\n\n")
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, "// handler%d serves one route and logs its latency.\n", i)
		case 1:
			fmt.Fprintf(&b, "func handler%d(ctx context.Context, w http.ResponseWriter, r *http.Request) error {\n", i)
		case 2:
			fmt.Fprintf(&b, "\tv%d, err := parseHeader(r.Header.Get(\"X-Trace-%d\"))\n", i, i)
		case 3:
			fmt.Fprintf(&b, "\tif err != nil {\n\t\treturn fmt.Errorf(\"route %d: %%w\", err)\n\t}\n", i)
		case 4:
			fmt.Fprintf(&b, "\tw.Write([]byte(strconv.Itoa(v%d)))\n", i-2)
		case 5:
			b.WriteString("\treturn nil\n}\n\n")
		}
	}
	lines := strings.SplitAfter(b.String(), "\n")
	text := strings.Join(lines[:n], "")
	args := map[string]any{
		"text": text, "goal_hint": "why does parseHeader fail on an empty X-Trace header", "source_type": "code",
		"options": engine.DefaultOptions(),
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "prune_text", "arguments": args}})
	return body
}

func startInProcess() (stop func(), addr string, err error) {
	// pruner serve's defaults: the heuristic, and structural for code (the requests' type).
	reg := engine.NewRegistry()
	reg.Register("heuristic", heuristic.New())
	reg.Register("structural", structural.New())
	reg.SetDefault("structural", engine.SourceCode)
	tok, err := tokenizer.Load(tokenizer.CL100K)
	if err != nil {
		return nil, "", err
	}
	eng, err := engine.New(engine.Config{Registry: reg, Tokens: tok, Store: engine.NewMemoryStore(engine.DefaultTTL, engine.DefaultStoreBytes, nil)})
	if err != nil {
		return nil, "", err
	}
	srv, err := server.New(server.Config{Engine: eng, Version: "loadtest", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	// pruner serve's heap floor too. It is the process's, so it holds for the load generator's
	// own garbage as well, as GOGC would.
	stopFloor := gcfloor.Start(gcfloor.DefaultBytes)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return func() { cancel(); <-done; stopFloor() }, ln.Addr().String(), nil
}

func ints(s string) []int {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "loadtest: bad number %q\n", p)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
