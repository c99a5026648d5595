package discovery

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
)

// codesPrefix is where redeemed authorization codes are recorded in Caddy's
// storage, one key per code: "<expiry in Unix seconds>-<code id>".
const codesPrefix = "discovery/oauth/codes"

const (
	// spendTimeout bounds the storage work of one redemption, lock
	// included.
	spendTimeout = 10 * time.Second
	// sweepEvery is how often an instance deletes expired records, and
	// sweepGrace how long after its code's expiry a record is kept: the
	// clocks of the instances may differ by up to that much.
	sweepEvery = time.Minute
	sweepGrace = time.Minute
)

// storageLedger makes authorization codes single-use across every instance
// that shares the Caddy storage (and so the token secret kept in it). The
// codes themselves are stateless; only a redemption writes: under a storage
// lock named for the code, the record is checked for and then written, so
// two instances redeeming one code at once cannot both succeed. Only codes
// this service signed, unexpired and with the right PKCE verifier, reach
// the ledger, so a client cannot make it write what it likes.
type storageLedger struct {
	storage certmagic.Storage
	logger  *zap.Logger
	// swept is when this instance last started a sweep, in Unix seconds.
	swept atomic.Int64
}

func newStorageLedger(storage certmagic.Storage, logger *zap.Logger) *storageLedger {
	l := &storageLedger{storage: storage, logger: logger}
	l.swept.Store(time.Now().Unix())
	return l
}

// Spend records the code id as redeemed; false if it already was.
func (l *storageLedger) Spend(ctx context.Context, id string, expires time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), spendTimeout)
	defer cancel()
	key := path.Join(codesPrefix, strconv.FormatInt(expires.Unix(), 10)+"-"+id)
	if err := l.storage.Lock(ctx, key); err != nil {
		l.logger.Error("authorization code ledger: locking storage", zap.Error(err))
		return false, fmt.Errorf("locking %s: %w", key, err)
	}
	defer func() {
		if err := l.storage.Unlock(ctx, key); err != nil {
			l.logger.Warn("authorization code ledger: unlocking storage", zap.Error(err))
		}
	}()
	if l.storage.Exists(ctx, key) {
		return false, nil
	}
	if err := l.storage.Store(ctx, key, nil); err != nil {
		l.logger.Error("authorization code ledger: storing", zap.Error(err))
		return false, fmt.Errorf("storing %s: %w", key, err)
	}
	l.maybeSweep()
	return true, nil
}

// maybeSweep starts a sweep when this instance has not started one for
// sweepEvery. The sweep is a bounded, finite goroutine: nothing runs while
// no code is redeemed, and a config reload leaves nothing behind.
func (l *storageLedger) maybeSweep() {
	now := time.Now().Unix()
	last := l.swept.Load()
	if now-last < int64(sweepEvery/time.Second) || !l.swept.CompareAndSwap(last, now) {
		return
	}
	go l.sweep(time.Unix(now, 0))
}

// sweep deletes the records of codes that expired more than sweepGrace
// ago: those codes are refused as expired anyway. There are at most as
// many records as codes redeemed in the last few minutes.
func (l *storageLedger) sweep(now time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys, err := l.storage.List(ctx, codesPrefix, false)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.logger.Warn("authorization code ledger: listing expired records", zap.Error(err))
		}
		return
	}
	for _, key := range keys {
		expiry, _, ok := strings.Cut(path.Base(key), "-")
		sec, err := strconv.ParseInt(expiry, 10, 64)
		if !ok || err != nil || now.Before(time.Unix(sec, 0).Add(sweepGrace)) {
			continue
		}
		if err := l.storage.Delete(ctx, key); err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.logger.Warn("authorization code ledger: deleting an expired record", zap.Error(err))
		}
	}
}
