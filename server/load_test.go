package server_test

import (
	"bufio"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"

	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// scrape reads gauges from /metrics.
func scrape(t *testing.T, url string, names ...string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		for _, n := range names {
			if v, ok := strings.CutPrefix(sc.Text(), n+" "); ok {
				out[n], _ = strconv.ParseFloat(v, 64)
			}
		}
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestLoadOnlyAnswers200Or429AndLosesNothing runs a bounded load (loopback only, stops by
// itself) against the real binary with the sphinx-en-us bundle. CI runs a short form;
// `make load` runs QUAL_LOAD_CONCURRENCY=64 for QUAL_LOAD_SECONDS=120 and prints the figures.
func TestLoadOnlyAnswers200Or429AndLosesNothing(t *testing.T) {
	f := setup(t)
	conc, seconds := envInt("QUAL_LOAD_CONCURRENCY", 16), envInt("QUAL_LOAD_SECONDS", 8)
	p := st.Start(t, f.server, []string{f.enUS}, "--lanes", "2", "--queue", "8")
	clip16k, err := os.ReadFile("/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav")
	if err != nil {
		t.Fatal(err)
	}
	for range 4 { // warm both lanes before the baseline
		st.Do(t, transcription(t, p.URL, "sphinx-en-us", clip16k))
	}
	time.Sleep(500 * time.Millisecond)
	gauges := []string{"go_goroutines", "process_resident_memory_bytes"}
	before := scrape(t, p.URL, gauges...)
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var mu sync.Mutex
	counts := map[int]int{}
	bad := []string{}
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline) && n < 10000; n++ {
				r := st.Do(t, transcription(t, p.URL, "sphinx-en-us", clip16k))
				mu.Lock()
				counts[r.Status]++
				if !(r.Status == 200 || (r.Status == 429 && r.Header.Get("Retry-After") != "" && r.ErrorCode() == contract.CodeServerBusy)) {
					bad = append(bad, strconv.Itoa(r.Status)+" "+string(r.Body))
				}
				mu.Unlock()
				if r.Status == 429 {
					time.Sleep(50 * time.Millisecond) // a polite client backs off
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(2 * time.Second) // let finished connections and goroutines wind down
	after := scrape(t, p.URL, gauges...)
	if len(bad) > 0 {
		t.Fatalf("%d answers other than 200 or 429 with Retry-After, e.g. %s", len(bad), bad[0])
	}
	sent := counts[200] + counts[429]
	if err := p.Stop(t); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, rec := range readRecords(t, p) {
		if rec.Route == "/v1/audio/transcriptions" {
			lines++
		}
	}
	if lines != sent+4 {
		t.Fatalf("%d transcription records for %d requests (+4 warm-up)", lines, sent)
	}
	if after["go_goroutines"] > before["go_goroutines"]+8 {
		t.Errorf("goroutines %v after load, %v before", after["go_goroutines"], before["go_goroutines"])
	}
	if after["process_resident_memory_bytes"] > before["process_resident_memory_bytes"]+256<<20 {
		t.Errorf("RSS %.0f MiB after load, %.0f MiB before", after["process_resident_memory_bytes"]/(1<<20), before["process_resident_memory_bytes"]/(1<<20))
	}
	t.Logf("load: concurrency %d for %ds: %d requests, %d x 200, %d x 429; records %d; goroutines %v -> %v; RSS %.1f -> %.1f MiB",
		conc, seconds, sent, counts[200], counts[429], lines, before["go_goroutines"], after["go_goroutines"],
		before["process_resident_memory_bytes"]/(1<<20), after["process_resident_memory_bytes"]/(1<<20))
}

// TestRSSAfter1000RequestsMatchesAfter10: no growth beyond noise over a long steady run.
func TestRSSAfter1000RequestsMatchesAfter10(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.tidigits})
	clip := digitClip(t)
	send := func(n int) {
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := w; i < n; i += 2 {
					if r := st.Do(t, transcription(t, p.URL, "sphinx-tidigits", clip)); r.Status != 200 {
						t.Errorf("request %d: %d %s", i, r.Status, r.Body)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	send(10)
	at10 := scrape(t, p.URL, "process_resident_memory_bytes")["process_resident_memory_bytes"]
	send(990)
	at1000 := scrape(t, p.URL, "process_resident_memory_bytes")["process_resident_memory_bytes"]
	t.Logf("RSS after 10 requests %.1f MiB, after 1000 %.1f MiB", at10/(1<<20), at1000/(1<<20))
	if at1000 > at10*1.25+16<<20 {
		t.Fatalf("RSS grew from %.1f to %.1f MiB over 990 requests", at10/(1<<20), at1000/(1<<20))
	}
}

func digitClip(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(st.RepoRoot() + "/golden/asr/sphinx-tidigits/clips/dhd.2934z.wav")
	if err != nil {
		t.Fatal(err)
	}
	return data
}
