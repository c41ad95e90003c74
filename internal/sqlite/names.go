package sqlite

import "context"

// Unalias removes a registered name (svc.NameStore), and forgets the
// products the writer remembers.
func (s *Store) Unalias(ctx context.Context, brandID, name string) (string, error) {
	s.productsMu.Lock()
	defer s.productsMu.Unlock()
	defer s.products.clear()
	return s.Store.Unalias(ctx, brandID, name)
}

// MergeProducts makes two products of the brand one (svc.NameStore), and
// forgets the products the writer remembers.
func (s *Store) MergeProducts(ctx context.Context, brandID, into, from string) (intoID, fromID string, err error) {
	s.productsMu.Lock()
	defer s.productsMu.Unlock()
	defer s.products.clear()
	return s.Store.MergeProducts(ctx, brandID, into, from)
}
