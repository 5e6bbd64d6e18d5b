package configapp

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
)

// BenchmarkBusRefresh measures how long a configuration change takes to
// reach running instances, all on loopback with a real configuration server
// and a real RabbitMQ. Each op first commits a new greeting.message (untimed),
// then:
//
//	Baseline  POST /refresh on one instance, until it serves the new value
//	Bus2      POST /bus/refresh on one of 2 instances, until both serve it
//	Bus5      the same with 5 instances
func BenchmarkBusRefresh(b *testing.B) {
	url := rabbittest.Start(b).VHost(b)
	o := newOrigin(b, map[string]string{"greeting-config.yml": open + "greeting:\n  message: v0\n"})
	cs := startConfigServer(b, o)
	version := 0
	change := func() string {
		version++
		v := fmt.Sprintf("v%d", version)
		o.commit(map[string]string{"greeting-config.yml": open + "greeting:\n  message: " + v + "\n"})
		return v
	}
	b.Run("Baseline", func(b *testing.B) {
		benchRefresh(b, startInstances(b, url, cs.URL, 1), "/refresh", change)
	})
	for _, n := range []int{2, 5} {
		b.Run(fmt.Sprintf("Bus%d", n), func(b *testing.B) {
			benchRefresh(b, startInstances(b, url, cs.URL, n), "/bus/refresh", change)
		})
	}
}

func startInstances(b *testing.B, brokerURL, configURL string, n int) []*instance {
	ins := make([]*instance, n)
	for i := range ins {
		ins[i] = startOnAMQP(b, brokerURL, Options{ConfigURL: configURL, Port: i + 1})
	}
	return ins
}

// benchRefresh posts path on the first instance, then polls every instance
// until each serves the value change committed.
func benchRefresh(b *testing.B, ins []*instance, path string, change func() string) {
	for b.Loop() {
		b.StopTimer()
		want := change()
		b.StartTimer()
		if a := ins[0].post(path); a.status >= 300 {
			b.Fatalf("POST %s: %d %s", path, a.status, a.body)
		}
		for _, in := range ins {
			for in.message() != want { // each poll is an HTTP round trip
			}
		}
	}
}

// message reads the greeting without the test helpers' checks, to keep the
// polling loop lean.
func (in *instance) message() string {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, in.srv.URL+"/", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.tb.Fatal(err)
	}
	defer resp.Body.Close()
	var m greetingModel
	_ = decodeJSON(resp, &m)
	return m.Msg
}
