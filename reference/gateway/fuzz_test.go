package gateway

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// FuzzReload writes arbitrary bytes as one more manifest file of a running
// gateway's directory and reloads: nothing may panic, and a refusal must
// leave every file in force exactly as it was (nothing half-applied: the
// refused file keeps its last accepted version), still serving.
func FuzzReload(f *testing.F) {
	up := startUpstream(f)
	dir := f.TempDir()
	writeFiles(f, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", distinctRule(3, "Minute"))})
	// Reloads happen only when the fuzz function asks.
	gw := startGateway(f, dir, Options{Rescan: time.Hour, Debounce: time.Hour})
	for _, seed := range []string{
		policyYAML("Local", plainRule(1, "Second")),
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: fortune}\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r2}\nspec:\n  parentRefs: [{name: eg}]\n  rules: [{matches: [{path: {type: RegularExpression, value: \"/x.*\"}}], backendRefs: [{name: s, port: 1}]}]\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g2}\nspec:\n  gatewayClassName: x\n  listeners: [{name: h, protocol: HTTP, port: 10080}]\n",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/tls\ndata: {tls.crt: QQ==, tls.key: QQ==}\n",
		"kind: [", "", "---\n---\n",
	} {
		f.Add([]byte(seed))
	}
	file := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		before := gw.config.Load()
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := gw.Reload()
		if after := gw.config.Load(); err != nil && !slices.EqualFunc(before.accepted, after.accepted, sameData) {
			t.Fatalf("refused (%v) but the configuration changed", err)
		}
		// Whatever is in force serves without failing.
		if a := send(t, "GET", gw.url(t, 10080)+"/", "x-user-id", "fuzz"); a.status >= 500 && a.status != 503 {
			t.Fatalf("status %d", a.status)
		}
	})
}

func sameData(a, b *fileRead) bool { return bytes.Equal(a.data, b.data) }
