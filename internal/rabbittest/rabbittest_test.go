package rabbittest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func dial(t *testing.T, url string) (*amqp.Connection, error) {
	t.Helper()
	return amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(5 * time.Second)})
}

// The broker serves "/" and a virtual host of the test's own; two tests never get the same one.
func TestTheBrokerServesItsVirtualHosts(t *testing.T) {
	b := Start(t)
	if Start(t) != b {
		t.Fatal("a second Start started another broker")
	}
	one, two := b.VHost(t), b.VHost(t)
	if one == two {
		t.Fatalf("two tests got the virtual host %s", one)
	}
	for _, url := range []string{b.URL(), one, two} {
		conn, err := dial(t, url)
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		conn.Close()
	}
	if _, err := dial(t, b.node.URL("nope")); err == nil {
		t.Fatal("a virtual host that was not created accepted a connection")
	}
	if _, err := os.Stat(filepath.Join(b.root)); err != nil {
		t.Fatal(err)
	}
}

// Down cuts the connections through the proxy and refuses new ones; Up accepts them again.
func TestTheProxyGoesDownAndUp(t *testing.T) {
	b := Start(t)
	p := NewProxy(t, b.URL())
	conn, err := dial(t, p.URL(b.URL()))
	if err != nil {
		t.Fatal(err)
	}
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	p.Down()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection was not cut")
	}
	if _, err := dial(t, p.URL(b.URL())); err == nil {
		t.Fatal("connected while the proxy is down")
	}
	p.Up()
	conn, err = dial(t, p.URL(b.URL()))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}
