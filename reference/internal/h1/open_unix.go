//go:build unix

package h1

import (
	"errors"
	"net"
	"syscall"
)

// peekOpen peeks at nc without waiting: open when a read would have to wait.
func peekOpen(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var b [1]byte
	var rerr error
	if err := raw.Read(func(fd uintptr) bool {
		_, _, rerr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	}); err != nil {
		return false
	}
	return errors.Is(rerr, syscall.EAGAIN)
}
