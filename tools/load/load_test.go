package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// server answers every request with status.
func server(t *testing.T, status int) started {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return started{t: target{url: srv.URL + "/", want: http.StatusOK}}
}

// A failed run never gives a ratio: not when the subject or the baseline
// could not start, nor when either one's run failed.
func TestAFailedRunGivesNoRatio(t *testing.T) {
	good, refusing := server(t, http.StatusOK), server(t, http.StatusTooManyRequests)
	m := &meter{ctx: context.Background(), d: 200 * time.Millisecond, rounds: 2, conns: 2}
	m.compare(comparison{name: "measured", target: ">= 0.40", min: 0.40, base: good, subj: good})
	for _, c := range []comparison{
		{name: "subject did not start", base: good, subj: started{err: errors.New("exited at start")}},
		{name: "baseline did not start", base: started{err: errors.New("refused")}, subj: good},
		{name: "subject run failed", base: good, subj: refusing},
		{name: "baseline run failed", base: refusing, subj: good},
	} {
		m.compare(c)
	}
	if f := m.figures[0]; f.err != nil || f.ratio <= 0 || f.lo > f.ratio || f.hi < f.ratio || f.rps <= 0 {
		t.Errorf("measured: ratio %v (%v-%v) at %v req/s, err %v", f.ratio, f.lo, f.hi, f.rps, f.err)
	}
	for _, f := range m.figures[1:] {
		if f.err == nil || f.ratio != 0 {
			t.Errorf("%s: ratio %v err %v, want no ratio and the reason", f.name, f.ratio, f.err)
		}
		if strings.HasPrefix(f.name, "baseline") != strings.Contains(f.err.Error(), "the baseline failed") {
			t.Errorf("%s: %v", f.name, f.err)
		}
	}
	if code := m.report(); code != 1 {
		t.Errorf("report exit code %d with figures not measured, want 1", code)
	}
}

func TestARunCountsOnlyTheWantedStatus(t *testing.T) {
	for _, tc := range []struct {
		status  int
		wantErr bool
	}{{http.StatusOK, false}, {http.StatusTooManyRequests, true}} {
		r := drive(server(t, tc.status).t, 2, 300*time.Millisecond)
		if err := r.err(); (err != nil) != tc.wantErr {
			t.Errorf("status %d: ok %d failed %d err %v, want error %v", tc.status, r.ok, r.failed, err, tc.wantErr)
		}
	}
}

func TestAnInterruptedMeterMeasuresNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &meter{ctx: ctx, d: time.Second, rounds: 1, conns: 1}
	m.compare(comparison{name: "interrupted", base: server(t, http.StatusOK), subj: server(t, http.StatusOK)})
	if err := m.figures[0].err; !errors.Is(err, context.Canceled) {
		t.Fatalf("measure after an interrupt: %v, want context.Canceled", err)
	}
}

// A missing anchor (nginx not installed) is said, and fails nothing: every
// figure the run promised was measured.
func TestAMissingAnchorFailsNothing(t *testing.T) {
	m := &meter{}
	m.figures = []figure{
		{comparison: comparison{name: "nginx", anchor: true}, err: errors.New("nginx is not installed")},
		{comparison: comparison{name: "measured", target: ">= 0.40", min: 0.40}, ratio: 0.5, lo: 0.5, hi: 0.5, rps: 100},
	}
	if code := m.report(); code != 0 {
		t.Errorf("report exit code %d without the anchor, want 0", code)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.v); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
