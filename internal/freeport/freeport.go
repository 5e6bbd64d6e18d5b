// Package freeport gives a loopback port to bind, so that parallel test binaries, the harness's child processes
// and a compose stack on the spec's ports never collide on a fixed number. It is the one place the module asks
// for a free port.
//
// A port is picked at random below the kernel's ephemeral range (Linux's ip_local_port_range, 32768-60999 by
// default) and checked by binding it. A port the kernel handed out (a listener on port 0) could be handed out
// again, for the local end of any outgoing connection of any process, between the moment it was found free and
// the moment its user binds it: in `make test`, with hundreds of connections a second, a child of the reference
// stack failed once with "address already in use". The kernel never hands out a port below its range.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowest is the lowest port picked: above every default port of the spec and of the programs the suite starts
// (RabbitMQ's 15672 included).
const lowest = 20000

// picks is how many random ports Port tries before it asks the kernel for one.
const picks = 64

// given holds the ports this process was given.
var given = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// Port returns a port on 127.0.0.1 that was free a moment ago and that this process was not given before.
// Another process could take it before the caller binds it; the caller's start then fails with a clear error
// rather than hanging.
func Port() (int, error) {
	given.Lock()
	defer given.Unlock()
	if hi := highest(); hi >= lowest {
		for range picks {
			if p := lowest + rand.IntN(hi-lowest+1); !given.ports[p] && bindable(p) {
				given.ports[p] = true
				return p, nil
			}
		}
	}
	for range picks {
		p, err := kernelPort()
		if err != nil {
			return 0, err
		}
		if !given.ports[p] {
			given.ports[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("finding a free port: %d tries gave ports this process already has", picks)
}

func bindable(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// kernelPort is a port the kernel hands out.
func kernelPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// rangeFile is where Linux keeps its ephemeral port range.
var rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// highest is the highest port below the kernel's ephemeral range: 32767 where the range cannot be read (Linux's
// default; other systems start theirs at 49152).
func highest() int {
	b, err := os.ReadFile(rangeFile)
	if err != nil {
		return 32767
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 32767
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32767
	}
	return low - 1
}

// TB is what Get needs of a test (testing.TB has it): the package stays out of the testing package, which the
// programs that use Port do not link.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Get is Port for a test, which fails when none can be found.
func Get(tb TB) int {
	tb.Helper()
	p, err := Port()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// GetN is Get for n ports at once, all different.
func GetN(tb TB, n int) []int {
	tb.Helper()
	ports := make([]int, n)
	for i := range ports {
		ports[i] = Get(tb)
	}
	return ports
}
