package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fortune-tck/fortune-tck/internal/atomicfile"

	"github.com/fortune-tck/fortune-tck/steps"
	"github.com/fortune-tck/fortune-tck/target"
)

// gatewayHooks tell the steps how to reach the gateway beyond HTTP: manifests are written into the folder it
// watches, or given to the target's apply command; access logs are read from the files the target names.
func gatewayHooks(g *target.Gateway, opts Options) steps.GatewayHooks {
	hooks := steps.GatewayHooks{Manifests: opts.Features, Apply: applier(g), Remove: remover(g)}
	if len(g.AccessLogs) > 0 {
		hooks.AccessLog = func() (string, error) { return readAll(g.AccessLogs) }
	}
	return hooks
}

// applier writes a manifest into the watched folder, readable by whoever runs the gateway (0644), or runs the
// target's apply command on it.
func applier(g *target.Gateway) func(context.Context, string, []byte) error {
	if g.ManifestDir != "" {
		return func(_ context.Context, name string, manifest []byte) error {
			// Through a rename: a watching gateway never reads half a manifest.
			if err := atomicfile.Write(filepath.Join(g.ManifestDir, name+".yaml"), manifest); err != nil {
				return fmt.Errorf("writing into services.gateway.manifestDir: %w", err)
			}
			return nil
		}
	}
	return func(ctx context.Context, name string, manifest []byte) error {
		return runOnManifest(ctx, "services.gateway.apply", g.Apply, name, manifest)
	}
}

// remover takes a manifest back: its file out of the watched folder, or the target's delete command on it;
// nil when the target gives no way.
func remover(g *target.Gateway) func(context.Context, string, []byte) error {
	switch {
	case g.ManifestDir != "":
		return func(_ context.Context, name string, _ []byte) error {
			err := os.Remove(filepath.Join(g.ManifestDir, name+".yaml"))
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
	case g.Delete != "":
		return func(ctx context.Context, name string, manifest []byte) error {
			return runOnManifest(ctx, "services.gateway.delete", g.Delete, name, manifest)
		}
	}
	return nil
}

// runOnManifest runs a command of the target with the manifest in the file $TCK_MANIFEST.
func runOnManifest(ctx context.Context, field, command, name string, manifest []byte) error {
	f, err := os.CreateTemp("", "tck-manifest-*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(manifest); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil { // read by the command, which may run as another user
		f.Close()
		return err
	}
	f.Close()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), "TCK_MANIFEST="+f.Name(), "TCK_MANIFEST_NAME="+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s failed for %s: %w\n%s", field, name, err, out)
	}
	return nil
}

// readAll reads the access logs, the last maxAccessLog of each: the lines a scenario looks for are its own,
// at the end, and a log of gigabytes is not read into memory.
func readAll(paths []string) (string, error) {
	var b strings.Builder
	for _, p := range paths {
		data, err := readTail(p, maxAccessLog)
		if err != nil {
			return "", fmt.Errorf("reading the gateway's access log (services.gateway.accessLogs): %w", err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// maxAccessLog is how much of the end of an access log readAll reads.
const maxAccessLog = 8 << 20

// readTail reads the last limit bytes of a file, from the start of a line.
func readTail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(0, st.Size()-limit)
	data, err := io.ReadAll(io.NewSectionReader(f, from, st.Size()-from))
	if err != nil {
		return nil, err
	}
	if from > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return data, nil
}

// checkManifestDir tells, before any scenario, whether the harness can write into the folder the gateway
// watches: a folder it cannot write is one error of the run that names it, not a blocked gateway scenario each.
func checkManifestDir(g *target.Gateway) error {
	if g == nil || g.ManifestDir == "" {
		return nil
	}
	f, err := os.CreateTemp(g.ManifestDir, ".tck-preflight-*")
	if err != nil {
		return fmt.Errorf("services.gateway.manifestDir: the harness cannot write into %s: %w\n%s", g.ManifestDir, err, manifestDirHint(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// manifestDirHint says what to do about a folder the harness cannot write: most often the implementation is
// not started yet, and the folder it watches (a volume of its) does not exist.
func manifestDirHint(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "The folder does not exist: start the implementation first (its gateway's manifests folder must exist), or fix manifestDir in the target file."
	case errors.Is(err, fs.ErrPermission):
		return "Let the user that runs tck write into it (the gateway must still read it: sudo, a group, or an ACL), or fix manifestDir in the target file."
	}
	return "Fix manifestDir in the target file: it must name the folder the gateway watches."
}
