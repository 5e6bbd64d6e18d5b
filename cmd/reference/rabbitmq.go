package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/rabbitmq"
)

// brokerTimeout bounds the start of RabbitMQ: seconds on an idle machine (an Erlang node loads its code), far
// more on a loaded one.
const brokerTimeout = 2 * time.Minute

// startRabbitMQ runs a private rabbitmq-server (with its own epmd) for the configuration applications' refresh
// bus, its files in the data folder, and returns at once: ready waits until it accepts AMQP connections and
// then gives its URL to the plan.
func (st *procStack) startRabbitMQ(ctx context.Context) (ready func() error, err error) {
	server, epmd, err := rabbitmq.Program()
	if err != nil {
		return nil, fmt.Errorf("the process stack's refresh bus needs RabbitMQ: %w", err)
	}
	node := rabbitmq.Node{Dir: filepath.Join(st.plan.dataDir, "rabbitmq")}
	for _, p := range []*int{&node.Port, &node.DistPort, &node.EpmdPort} {
		if *p, err = freeport.Port(); err != nil {
			return nil, err
		}
	}
	if err := node.Prepare(); err != nil {
		return nil, err
	}
	if _, err := st.start("epmd", epmd, node.EpmdArgs()...); err != nil {
		return nil, err
	}
	p, err := st.startEnv("rabbitmq", node.Env(), server)
	if err != nil {
		return nil, err
	}
	return func() error {
		deadline := time.Now().Add(brokerTimeout)
		for node.Ready() != nil {
			select {
			case <-p.Done():
				return fmt.Errorf("rabbitmq-server exited at start (%v); its log %s:\n%s", p.Err(), p.LogPath(), p.Tail(20))
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("rabbitmq-server does not accept connections on %s after %s; its log %s:\n%s",
					node.Addr(), brokerTimeout, p.LogPath(), p.Tail(20))
			}
		}
		st.plan.brokerURL = node.URL("/")
		return st.ready(p, nil, node.Addr())
	}, nil
}
