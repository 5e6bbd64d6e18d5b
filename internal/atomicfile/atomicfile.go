// Package atomicfile writes a file through a rename, so that a reader polling
// or watching for it (a ready file, a target file, a manifest a gateway
// reloads) sees all of it or nothing, never a part.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside path (a dot file that no
// pattern such as *.yaml takes) and renames it to path. The file is readable
// by every user (0644): a gateway in a container reads the manifests the
// harness writes as a user of its own.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
