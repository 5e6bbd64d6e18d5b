//go:build !linux

package configserver

func newRefReader() refReader { return osRefReader{} }
