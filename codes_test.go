package discovery

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"
)

func TestStorageLedgerSpendsOnce(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	a := newStorageLedger(storage, zap.NewNop())
	b := newStorageLedger(storage, zap.NewNop()) // another instance on the same storage
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	if first, err := a.Spend(ctx, "code-1", expires); !first || err != nil {
		t.Fatalf("first redemption: %v %v", first, err)
	}
	for name, l := range map[string]*storageLedger{"same instance": a, "other instance": b} {
		if first, err := l.Spend(ctx, "code-1", expires); first || err != nil {
			t.Errorf("%s: a second redemption was accepted (%v)", name, err)
		}
	}
	if first, _ := b.Spend(ctx, "code-2", expires); !first {
		t.Error("another code was refused")
	}
}

func TestStorageLedgerConcurrentRedemptions(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	ledgers := []*storageLedger{newStorageLedger(storage, zap.NewNop()), newStorageLedger(storage, zap.NewNop())}
	var wins atomic.Int32
	var wg sync.WaitGroup
	// One code, so one expiry: the code carries it. Taken in each goroutine,
	// a second boundary between them made two records of one code.
	expires := time.Now().Add(time.Minute)
	for i := range 8 {
		wg.Go(func() {
			first, err := ledgers[i%2].Spend(context.Background(), "contested", expires)
			if err != nil {
				t.Error(err)
			}
			if first {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d redemptions of one code succeeded, want 1", wins.Load())
	}
}

func TestStorageLedgerSweepsExpiredRecords(t *testing.T) {
	storage := &certmagic.FileStorage{Path: t.TempDir()}
	l := newStorageLedger(storage, zap.NewNop())
	ctx := context.Background()
	now := time.Now()
	old, recent := now.Add(-sweepGrace-2*time.Second), now.Add(-time.Second)
	for id, exp := range map[string]time.Time{"old": old, "recent": recent} {
		if first, err := l.Spend(ctx, id, exp); !first || err != nil {
			t.Fatal(id, err)
		}
	}
	l.sweep(now)
	keys, err := storage.List(ctx, codesPrefix, false)
	if err != nil || len(keys) != 1 {
		t.Fatalf("after the sweep: %v %v", keys, err)
	}
	if first, _ := l.Spend(ctx, "recent", recent); first {
		t.Error("the sweep forgot a record still within its grace")
	}
}
