package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestTheReturnedPortCanBeBound(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(Get(t)))
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}
