package routing

import (
	"cmp"
	"crypto/tls"
	"errors"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// listenerCerts are the certificates of one HTTPS listener.
type listenerCerts struct {
	hostname string
	certs    []tls.Certificate
}

// certificates resolves the certificateRefs of an HTTPS listener, or makes
// a self-signed certificate when it names none. A Secret that is missing
// or unusable is an error: the listener could not be served.
func (b *builder) certificates(g *manifest.Gateway, l *manifest.Listener) *listenerCerts {
	lc := &listenerCerts{hostname: l.Hostname}
	if len(l.Certificates) == 0 {
		if b.o.SelfSigned == nil {
			b.errorf(&g.Meta, l.Field+".tls.certificateRefs", l.Line, "is required (no self-signed certificates here)")
			return nil
		}
		c, err := b.o.SelfSigned(l.Hostname)
		if err != nil {
			b.errorf(&g.Meta, l.Field+".tls", l.Line, "cannot make a self-signed certificate: %v", err)
			return nil
		}
		lc.certs = append(lc.certs, *c)
		return lc
	}
	for _, ref := range l.Certificates {
		ns := cmp.Or(ref.Namespace, g.Namespace)
		s := b.secrets[ns+"/"+ref.Name]
		switch {
		case ns != g.Namespace:
			b.errorf(&g.Meta, ref.Field+".namespace", ref.Line, "cross-namespace certificateRefs need a ReferenceGrant, which is not implemented")
		case s == nil:
			b.errorf(&g.Meta, ref.Field+".name", ref.Line, "Secret %s/%s not found in the configuration directory", ns, ref.Name)
		case s.Type != manifest.SecretTypeTLS || s.Certificate == nil:
			b.errorf(&g.Meta, ref.Field+".name", ref.Line, "Secret %s/%s has type %q; a listener needs a %s Secret", ns, ref.Name, s.Type, manifest.SecretTypeTLS)
		default:
			lc.certs = append(lc.certs, *s.Certificate)
		}
	}
	return lc
}

// tlsConfig serves the certificate of the listener whose hostname best
// matches the client's SNI; HTTP/2 is offered, as Envoy does.
func (p *Port) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"h2", "http/1.1"},
		GetCertificate: p.certificate,
	}
}

var errNoCertificate = errors.New("no certificate")

// certificate picks by SNI: exact hostname, then wildcard, then a listener
// without hostname, then the first listener (a client that sends no SNI,
// e.g. one that dials an IP address, still gets a certificate).
func (p *Port) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	sni := strings.ToLower(strings.TrimSuffix(hello.ServerName, "."))
	var best *listenerCerts
	for _, lc := range p.certs {
		if (lc.hostname == "" || hostMatches(lc.hostname, sni)) && (best == nil || moreSpecific(lc.hostname, best.hostname)) {
			best = lc
		}
	}
	if best == nil && len(p.certs) > 0 {
		best = p.certs[0]
	}
	if best == nil || len(best.certs) == 0 {
		return nil, errNoCertificate
	}
	for i := range best.certs {
		if hello.SupportsCertificate(&best.certs[i]) == nil {
			return &best.certs[i], nil
		}
	}
	return &best.certs[0], nil
}
