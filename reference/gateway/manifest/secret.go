package manifest

import (
	"crypto/tls"
	"encoding/base64"
)

// readSecret reads a v1 Secret. Only kubernetes.io/tls Secrets matter
// here (listener certificates); their key pair is checked at load so a bad
// certificate is refused with its field, not at the first TLS handshake.
func readSecret(set *Set, m Meta, o *object) {
	s := &Secret{Meta: m, Type: o.str("type")}
	o.ignore("immutable")
	if s.Type != SecretTypeTLS {
		o.ignore("data", "stringData") // other Secrets are not used
		set.Secrets = append(set.Secrets, s)
		return
	}
	data := o.child("data")
	str := o.child("stringData")
	crt := secretValue(data, str, "tls.crt")
	key := secretValue(data, str, "tls.key")
	data.done()
	str.done()
	if crt == nil || key == nil {
		return
	}
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		field, f := "tls.crt", data
		if str.has("tls.crt") {
			f = str
		}
		f.errorf(field, "tls.crt and tls.key are not a usable key pair: %v", err)
		return
	}
	s.Certificate = &pair
	set.Secrets = append(set.Secrets, s)
}

// secretValue reads key from stringData (plain text) or data (base64), as
// the API server merges them; nil after an error.
func secretValue(data, str *object, key string) []byte {
	if str.has(key) {
		data.ignore(key)
		return []byte(str.str(key))
	}
	if !data.has(key) {
		data.errorf(key, "is required in a %s Secret", SecretTypeTLS)
		return nil
	}
	v := data.str(key)
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		data.errorf(key, "is not base64: %v", err)
		return nil
	}
	return b
}
