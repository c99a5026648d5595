package discovery

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// trustedRoots is the system's certificate pool with the certificates of
// the PEM files added, or nil (the system's, untouched) when there are no
// files. Each file must hold at least one certificate, and nothing else
// that is not one: a key or a typo is an error at load, not a mystery at
// the first fetch.
func trustedRoots(files []string) (*x509.CertPool, error) {
	if len(files) == 0 {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool() // no system pool on this platform
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		n := 0
		for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
			if block.Type != "CERTIFICATE" {
				return nil, fmt.Errorf("%s: holds a %s block; only certificates belong here", file, block.Type)
			}
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			pool.AddCert(cert)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: holds no PEM certificate", file)
		}
	}
	return pool, nil
}
