package discovery

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-discovery/caddy-discovery/internal/token"
)

// tokenSecretKey is where the generated token secret is kept in Caddy's
// storage, so that a restart and every instance sharing the storage accept
// the tokens any of them issued.
const tokenSecretKey = "discovery/token_secret"

// validTokenSecret checks a configured secret, with its placeholders
// expanded: long enough, and not empty because a variable is unset.
func validTokenSecret(configured string) error {
	secret := caddy.NewReplacer().ReplaceKnown(configured, "")
	switch {
	case secret == "" && strings.Contains(configured, "{"):
		return fmt.Errorf("token_secret: %s is empty (is the environment variable set?); make a secret with: openssl rand -base64 48", configured)
	case len(secret) < token.MinSecretLen:
		return fmt.Errorf("token_secret: must be at least %d bytes, got %d; make one with: openssl rand -base64 48", token.MinSecretLen, len(secret))
	}
	return nil
}

// tokenSecret returns the configured secret, or the one kept in storage,
// generating and storing it on first use.
func tokenSecret(ctx caddy.Context, configured string, logger *zap.Logger) ([]byte, error) {
	if configured != "" {
		return []byte(caddy.NewReplacer().ReplaceKnown(configured, "")), nil // checked by Validate
	}
	storage := ctx.Storage()
	// The lock makes instances that start together agree on one secret.
	if err := storage.Lock(ctx, tokenSecretKey); err != nil {
		return nil, fmt.Errorf("token secret: locking storage: %w", err)
	}
	defer func() { _ = storage.Unlock(ctx, tokenSecretKey) }()
	data, err := storage.Load(ctx, tokenSecretKey)
	switch {
	case err == nil:
		secret, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
		if err != nil || len(secret) < token.MinSecretLen {
			return nil, fmt.Errorf("token secret: the value stored at %s is not a base64 secret of at least %d bytes", tokenSecretKey, token.MinSecretLen)
		}
		return secret, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("token secret: loading from storage: %w", err)
	}
	secret, err := token.NewSecret()
	if err != nil {
		return nil, err
	}
	if err := storage.Store(ctx, tokenSecretKey, []byte(base64.StdEncoding.EncodeToString(secret))); err != nil {
		return nil, fmt.Errorf("token secret: storing: %w", err)
	}
	logger.Info("generated the token secret and stored it", zap.String("key", tokenSecretKey))
	return secret, nil
}
