package svc

import (
	"context"
	"time"
)

// The rules of the writes of a BrandStore, once for every store: which
// error each refusal is, and that every change bumps the config version.
// A store runs them in a transaction of its own, through a BrandTx.

// BrandTx is what the brand rules ask of a store, inside one transaction.
type BrandTx interface {
	// InsertBrand stores a new brand as given; it reports false, and
	// stores nothing, when the id is taken.
	InsertBrand(ctx context.Context, b *Brand) (bool, error)
	// UpdateBrand replaces the stored fields of the brand with b.ID but its
	// creation time; it reports false when there is none.
	UpdateBrand(ctx context.Context, b *Brand) (bool, error)
	// InsertAPIKey stores a key; it reports false, and stores nothing,
	// when the key's brand does not exist.
	InsertAPIKey(ctx context.Context, k *APIKey) (bool, error)
	// ActiveAPIKeys returns the brand's keys not revoked whose hash or
	// prefix is the one given, locked until the transaction ends where the
	// store locks rows.
	ActiveAPIKeys(ctx context.Context, brandID string, hash [32]byte, prefix string) ([]*APIKey, error)
	// RevokeAPIKey marks the key with the hash revoked at at.
	RevokeAPIKey(ctx context.Context, hash [32]byte, at time.Time) error
	// BumpConfigVersion changes the number BrandStore.ConfigVersion returns.
	BumpConfigVersion(ctx context.Context) error
}

// CreateBrand stores a new brand and, if key is not nil, its first key
// (BrandStore.CreateBrand). Returns ECONFLICT if the brand's id is taken.
func CreateBrand(ctx context.Context, tx BrandTx, b *Brand, key *APIKey) error {
	stored := b.Stored()
	ok, err := tx.InsertBrand(ctx, &stored)
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ECONFLICT, "brand %q exists", b.ID)
	}
	if key != nil {
		if err := insertAPIKey(ctx, tx, key); err != nil {
			return err
		}
	}
	return tx.BumpConfigVersion(ctx)
}

// UpdateBrand replaces a brand (BrandStore.UpdateBrand). Returns ENOTFOUND
// if there is none.
func UpdateBrand(ctx context.Context, tx BrandTx, b *Brand) error {
	stored := b.Stored()
	ok, err := tx.UpdateBrand(ctx, &stored)
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ENOTFOUND, "brand %q not found", b.ID)
	}
	return tx.BumpConfigVersion(ctx)
}

// CreateAPIKey stores a key (BrandStore.CreateAPIKey). Returns ENOTFOUND if
// its brand does not exist.
func CreateAPIKey(ctx context.Context, tx BrandTx, k *APIKey) error {
	if err := insertAPIKey(ctx, tx, k); err != nil {
		return err
	}
	return tx.BumpConfigVersion(ctx)
}

func insertAPIKey(ctx context.Context, tx BrandTx, k *APIKey) error {
	ok, err := tx.InsertAPIKey(ctx, k)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, "brand %q not found", k.BrandID)
	}
	return err
}

// RevokeAPIKey revokes a brand's key by its secret or whole prefix
// (BrandStore.RevokeAPIKey) and returns it. Returns ENOTFOUND if no active
// key of the brand matches, and ECONFLICT if a prefix matches more than one.
func RevokeAPIKey(ctx context.Context, tx BrandTx, brandID, secretOrPrefix string, at time.Time) (*APIKey, error) {
	if err := CheckRevocation(brandID, secretOrPrefix); err != nil {
		return nil, err
	}
	matches, err := tx.ActiveAPIKeys(ctx, brandID, HashAPIKey(secretOrPrefix), secretOrPrefix)
	if err != nil {
		return nil, err
	}
	k, err := KeyToRevoke(matches, brandID, secretOrPrefix)
	if err != nil {
		return nil, err
	}
	if err := tx.RevokeAPIKey(ctx, k.Hash, at); err != nil {
		return nil, err
	}
	t := at.UTC()
	k.RevokedAt = &t
	return k, tx.BumpConfigVersion(ctx)
}

// EraseTx is what ForgetSession asks of a store, inside one transaction.
type EraseTx interface {
	// DeleteSession deletes the brand's views and orders that carry the
	// session id, and returns how many it deleted.
	DeleteSession(ctx context.Context, brandID, sessionID string) (int64, error)
	// BumpErasureVersion changes the number EventStore.ErasureVersion
	// returns.
	BumpErasureVersion(ctx context.Context) error
}

// ForgetSession erases a session's events (EventStore.ForgetSession).
// Servers recount when the erasure version changes, so it changes only
// when events were deleted.
func ForgetSession(ctx context.Context, tx EraseTx, brandID, sessionID string) (int64, error) {
	n, err := tx.DeleteSession(ctx, brandID, sessionID)
	if err != nil || n == 0 {
		return n, err
	}
	return n, tx.BumpErasureVersion(ctx)
}
