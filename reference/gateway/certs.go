package gateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"time"
)

// certCache makes self-signed certificates for HTTPS listeners that name
// no certificateRefs, once per hostname: a reload keeps the certificate a
// client may have chosen to trust.
type certCache struct {
	mu    sync.Mutex
	certs map[string]*tls.Certificate
}

func (c *certCache) get(hostname string) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cert := c.certs[hostname]; cert != nil {
		return cert, nil
	}
	cert, err := selfSigned(hostname)
	if err != nil {
		return nil, err
	}
	if c.certs == nil {
		c.certs = map[string]*tls.Certificate{}
	}
	c.certs[hostname] = cert
	return cert, nil
}

// selfSigned makes a certificate for hostname (if any), localhost and the
// loopback addresses, valid for a year.
func selfSigned(hostname string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	names := []string{"localhost"}
	if hostname != "" {
		names = append([]string{hostname}, names...)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: names[0], Organization: []string{"fortune-tck reference gateway (self-signed)"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     names,
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}
