package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A failed run never gives a ratio: neither a figure whose own run failed nor one whose baseline did.
func TestAFailedRunGivesNoRatio(t *testing.T) {
	m := &meter{}
	good := result{rps: 100, ok: 500}
	base := baseline{first: result{rps: 200, ok: 1000}, second: result{rps: 200, ok: 1000}}
	m.add("measured", ">= 0.40", 0.40, good, nil, base)
	m.add("own run failed", ">= 0.40", 0.40, result{}, errors.New("no answer"), base)
	m.add("baseline failed", ">= 0.40", 0.40, good, nil, baseline{err: errors.New("refused")})
	if f := m.figures[0]; f.err != nil || f.ratio != 0.5 {
		t.Errorf("measured: ratio %v err %v, want 0.5", f.ratio, f.err)
	}
	for _, f := range m.figures[1:] {
		if f.err == nil || f.ratio != 0 {
			t.Errorf("%s: ratio %v err %v, want no ratio and the reason", f.name, f.ratio, f.err)
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
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(`{"ok":true}`))
		}))
		r := drive(target{url: srv.URL + "/", method: http.MethodGet, want: http.StatusOK}, 2, 300*time.Millisecond)
		srv.Close()
		if err := r.err(); (err != nil) != tc.wantErr {
			t.Errorf("status %d: ok %d failed %d err %v, want error %v", tc.status, r.ok, r.failed, err, tc.wantErr)
		}
	}
}

func TestAnInterruptedMeterMeasuresNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &meter{ctx: ctx, d: time.Second, conns: 1}
	if _, err := m.measure(target{url: "http://127.0.0.1:1/"}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("measure after an interrupt: %v, want context.Canceled", err)
	}
}

// A missing anchor (nginx not installed) is said, and fails nothing: every
// figure the run promised was measured.
func TestAMissingAnchorFailsNothing(t *testing.T) {
	m := &meter{}
	base := baseline{first: result{rps: 200, ok: 1000}, second: result{rps: 200, ok: 1000}}
	m.add("nginx", "", 0, result{}, errors.New("nginx is not installed"), base)
	m.figures[0].anchor = true
	m.add("measured", ">= 0.40", 0.40, result{rps: 100, ok: 500}, nil, base)
	if code := m.report(); code != 0 {
		t.Errorf("report exit code %d without the anchor, want 0", code)
	}
}
