package discovery

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTrustedRoots(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "intranet test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, blocks ...*pem.Block) string {
		var b []byte
		for _, block := range blocks {
			b = append(b, pem.EncodeToMemory(block)...)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ca := write("ca.pem", &pem.Block{Type: "CERTIFICATE", Bytes: der})
	if pool, err := trustedRoots(nil); pool != nil || err != nil {
		t.Errorf("no files: %v, %v; want the system's pool (nil)", pool, err)
	}
	pool, err := trustedRoots([]string{ca})
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Errorf("the CA is not trusted: %v", err)
	}
	for name, tc := range map[string]struct{ file, want string }{
		"missing":    {filepath.Join(dir, "none.pem"), "no such file"},
		"empty":      {write("empty.pem"), "no PEM certificate"},
		"a key":      {write("key.pem", &pem.Block{Type: "CERTIFICATE", Bytes: der}, &pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), "EC PRIVATE KEY"},
		"not a cert": {write("bad.pem", &pem.Block{Type: "CERTIFICATE", Bytes: []byte("nope")}), "bad.pem"},
	} {
		if _, err := trustedRoots([]string{ca, tc.file}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error about %q", name, err, tc.want)
		}
	}
}
