package storetest

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// testDashboardSessions checks that a sign-in link opens one session,
// once and before it expires, and that a session ends and expires.
func testDashboardSessions(t *testing.T, s svc.Store) {
	token, link := svc.NewSignInLink("br_1", t0)
	if err := s.CreateSignInLink(ctx, link); err != nil {
		t.Fatal(err)
	}
	id, sess := svc.NewDashboardSession("", t0)
	sess.BrandID = ""
	if err := s.RedeemSignInLink(ctx, svc.HashSecret("not the token"), t0, sess); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("unknown token: %v", err)
	}
	if l, err := s.SignInLink(ctx, svc.HashSecret(token), t0.Add(time.Minute)); err != nil || l.BrandID != "br_1" || !l.ExpiresAt.Equal(link.ExpiresAt.Truncate(time.Millisecond)) {
		t.Fatalf("a fresh link: %+v, %v", l, err)
	}
	if _, err := s.SignInLink(ctx, svc.HashSecret("not the token"), t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("looking up an unknown token: %v", err)
	}
	if err := s.RedeemSignInLink(ctx, svc.HashSecret(token), t0.Add(time.Minute), sess); err != nil {
		t.Fatal(err)
	}
	if l, err := s.SignInLink(ctx, svc.HashSecret(token), t0.Add(time.Minute)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("looking up a used link: %+v, %v", l, err)
	}
	if sess.BrandID != "br_1" {
		t.Fatalf("the session is for %q, want the link's brand", sess.BrandID)
	}
	_, again := svc.NewDashboardSession("", t0)
	if err := s.RedeemSignInLink(ctx, svc.HashSecret(token), t0.Add(2*time.Minute), again); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a used link: %v", err)
	}
	if _, err := s.DashboardSession(ctx, again.Hash, t0.Add(2*time.Minute)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a second redemption opened a session: %v", err)
	}
	got, err := s.DashboardSession(ctx, svc.HashSecret(id), t0.Add(time.Hour))
	if err != nil || got.BrandID != "br_1" || got.CSRF != sess.CSRF || !got.ExpiresAt.Equal(sess.ExpiresAt.Truncate(time.Millisecond)) || got.Operator() {
		t.Fatalf("session %+v, %v", got, err)
	}
	if _, err := s.DashboardSession(ctx, svc.HashSecret(id), sess.ExpiresAt); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an expired session: %v", err)
	}

	expired, late := svc.NewSignInLink("", t0)
	if err := s.CreateSignInLink(ctx, late); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignInLink(ctx, svc.HashSecret(expired), t0.Add(svc.SignInLinkTTL)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("looking up a link 15 minutes old: %v", err)
	}
	if err := s.RedeemSignInLink(ctx, svc.HashSecret(expired), t0.Add(svc.SignInLinkTTL), again); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a link 15 minutes old: %v", err)
	}

	op, opLink := svc.NewSignInLink("", t0)
	if err := s.CreateSignInLink(ctx, opLink); err != nil {
		t.Fatal(err)
	}
	opID, opSess := svc.NewDashboardSession("", t0)
	if err := s.RedeemSignInLink(ctx, svc.HashSecret(op), t0, opSess); err != nil || !opSess.Operator() {
		t.Fatalf("operator link: %+v, %v", opSess, err)
	}
	if err := s.EndDashboardSession(ctx, svc.HashSecret(opID), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DashboardSession(ctx, svc.HashSecret(opID), t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an ended session: %v", err)
	}
	if _, err := s.DashboardSession(ctx, svc.HashSecret(id), t0.Add(time.Hour)); err != nil {
		t.Fatalf("ending one session ended another: %v", err)
	}
}
