package token

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestClientRoundTrip(t *testing.T) {
	i := newIssuer(t, Config{})
	uris := []string{"http://127.0.0.1/callback", "https://app.example/cb?x=1"}
	id, err := i.RegisterClient(uris)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "dcl_") {
		t.Errorf("client id %q", id)
	}
	if again, _ := i.RegisterClient(uris); again != id {
		t.Error("the same redirect URIs gave another client id")
	}
	got, err := i.VerifyClient(id)
	if err != nil || strings.Join(got, " ") != strings.Join(uris, " ") {
		t.Fatalf("VerifyClient = %q, %v", got, err)
	}
	if _, err := newIssuer(t, Config{Secret: otherSecret}).VerifyClient(id); !errors.Is(err, ErrSignature) {
		t.Errorf("another secret: %v", err)
	}
}

func TestRegisterClientBounds(t *testing.T) {
	i := newIssuer(t, Config{})
	for name, uris := range map[string][]string{
		"none":      nil,
		"too many":  {"https://a/1", "https://a/2", "https://a/3", "https://a/4", "https://a/5"},
		"too long":  {"https://a/" + strings.Repeat("x", MaxRedirectURIsLen)},
		"too long2": {"https://a/" + strings.Repeat("x", 600), "https://a/" + strings.Repeat("x", 600)},
	} {
		if _, err := i.RegisterClient(uris); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

func TestVerifyClientMalformed(t *testing.T) {
	i := newIssuer(t, Config{})
	id, _ := i.RegisterClient([]string{"https://app.example/cb"})
	raw, _ := base64.RawURLEncoding.DecodeString(id[4:])
	flipped := append([]byte(nil), raw...)
	flipped[5] ^= 1
	for name, tc := range map[string]struct {
		id   string
		want error
	}{
		"empty":         {"", ErrMalformed},
		"no prefix":     {id[4:], ErrMalformed},
		"not base64url": {"dcl_a+b", ErrMalformed},
		"short":         {"dcl_AQE", ErrMalformed},
		"oversized":     {"dcl_" + strings.Repeat("A", 5000), ErrMalformed},
		"tampered":      {"dcl_" + base64.RawURLEncoding.EncodeToString(flipped), ErrSignature},
		"truncated":     {id[:len(id)-2], ErrSignature},
		"an access token": {func() string {
			tok, _, _ := i.IssueAccessToken()
			return tok
		}(), ErrMalformed},
	} {
		if _, err := i.VerifyClient(tc.id); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

// pkce returns a verifier and its S256 challenge, decoded.
func pkce(seed string) (verifier string, challenge []byte) {
	verifier = strings.Repeat(seed, 43)[:43]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, sum[:]
}

func TestCodeRoundTrip(t *testing.T) {
	c := &clock{t: t0}
	i := newIssuer(t, Config{Now: c.Now})
	client, _ := i.RegisterClient([]string{"http://127.0.0.1/cb"})
	redirect := "http://127.0.0.1:5173/cb"
	verifier, challenge := pkce("v")
	code, err := i.IssueCode(client, redirect, challenge, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(code, "dac_") {
		t.Errorf("code %q", code)
	}
	other, _ := i.IssueCode(client, redirect, challenge, nil)
	if other == code {
		t.Error("two codes are equal")
	}
	got, err := i.RedeemCode(code, client, redirect, verifier)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Expires.Equal(t0.Add(DefaultCodeTTL)) || got.ID == "" {
		t.Errorf("code %+v", got)
	}
	if again, _ := i.RedeemCode(other, client, redirect, verifier); again.ID == got.ID {
		t.Error("two codes have one ID")
	}

	wrongVerifier, _ := pkce("w")
	otherClient, _ := i.RegisterClient([]string{"https://else.example/cb"})
	raw, _ := base64.RawURLEncoding.DecodeString(code[4:])
	raw[12] ^= 1
	for name, tc := range map[string]struct {
		code, client, redirect, verifier string
		want                             error
	}{
		"wrong verifier":     {code, client, redirect, wrongVerifier, ErrVerifier},
		"empty verifier":     {code, client, redirect, "", ErrVerifier},
		"the challenge":      {code, client, redirect, base64.RawURLEncoding.EncodeToString(challenge), ErrVerifier},
		"another client":     {code, otherClient, redirect, verifier, ErrForeign},
		"another redirect":   {code, client, "http://127.0.0.1:5174/cb", verifier, ErrForeign},
		"tampered":           {"dac_" + base64.RawURLEncoding.EncodeToString(raw), client, redirect, verifier, ErrSignature},
		"garbage":            {"dac_abc", client, redirect, verifier, ErrMalformed},
		"a client id":        {client, client, redirect, verifier, ErrMalformed},
		"oversized":          {"dac_" + strings.Repeat("A", 3000), client, redirect, verifier, ErrMalformed},
		"another secret's":   {mustCode(t, newIssuer(t, Config{Secret: otherSecret, Now: c.Now}), client, redirect, challenge), client, redirect, verifier, ErrSignature},
		"without the prefix": {code[4:], client, redirect, verifier, ErrMalformed},
	} {
		if _, err := i.RedeemCode(tc.code, tc.client, tc.redirect, tc.verifier); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}

	c.Set(t0.Add(DefaultCodeTTL - time.Second))
	if _, err := i.RedeemCode(code, client, redirect, verifier); err != nil {
		t.Errorf("a second before expiry: %v", err)
	}
	c.Set(t0.Add(DefaultCodeTTL))
	if _, err := i.RedeemCode(code, client, redirect, verifier); !errors.Is(err, ErrExpired) {
		t.Errorf("at expiry: %v", err)
	}
}

func mustCode(t *testing.T, i *Issuer, client, redirect string, challenge []byte) string {
	t.Helper()
	code, err := i.IssueCode(client, redirect, challenge, nil)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestIssueCodeRefusesOtherChallenges(t *testing.T) {
	i := newIssuer(t, Config{})
	if _, err := i.IssueCode("dcl_x", "https://a/cb", []byte("short"), nil); err == nil {
		t.Error("a 5-byte challenge was accepted")
	}
}

func TestCodeTTL(t *testing.T) {
	if _, err := NewIssuer(Config{Secret: testSecret, Issuer: testIssuerURL, CodeTTL: time.Millisecond}); err == nil {
		t.Error("a 1ms code lifetime was accepted")
	}
	i := newIssuer(t, Config{CodeTTL: 5 * time.Second, Now: fixedNow(t0)})
	_, challenge := pkce("v")
	verifier, _ := pkce("v")
	code := mustCode(t, i, "dcl_x", "https://a/cb", challenge)
	got, err := i.RedeemCode(code, "dcl_x", "https://a/cb", verifier)
	if err != nil || !got.Expires.Equal(t0.Add(5*time.Second)) {
		t.Errorf("%+v %v", got, err)
	}
}
