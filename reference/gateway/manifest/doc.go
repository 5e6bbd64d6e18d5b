// Package manifest reads the Kubernetes manifests the reference gateway is
// configured with, as a person hands them to Envoy Gateway: multi-document
// YAML files holding Gateway and HTTPRoute (gateway.networking.k8s.io/v1,
// also v1beta1), Backend and BackendTrafficPolicy
// (gateway.envoyproxy.io/v1alpha1), and kubernetes.io/tls Secrets (v1). A v1
// List of them is read too.
//
// Reading is validation: a value the Kubernetes API server or Envoy
// Gateway's validation would refuse is an Error naming the file and line,
// the resource (Kind namespace/name) and the field path, e.g.
//
//	routes.yaml:14: HTTPRoute default/quotes: spec.rules[0].matches[0].path.type: unsupported value "Prefix"; valid: Exact, PathPrefix, RegularExpression
//
// and Parse returns no Set at all when there is one: a directory is applied
// whole or not at all.
//
// A field or kind that is valid but not acted upon here gives a Notice with
// the same coordinates ("not implemented by this gateway; ignored"), which
// the gateway logs at load: nothing is ignored silently. Metadata without
// behaviour (labels, annotations, uid...) and status are skipped quietly.
//
// Resources without metadata.namespace are in "default". References between
// resources are resolved by the gateway, not here: a reference that does
// not resolve is a Gateway API route condition, not a syntax error.
package manifest
