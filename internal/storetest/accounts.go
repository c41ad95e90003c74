package storetest

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// testMembers checks members by address and role: a role changes, the
// last owner stays, and a member removed from their last brand loses
// their sessions in the same transaction.
func testMembers(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	withBrand(t, s, "br_2")
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_nope", Email: "a@shop.example", Role: svc.RoleOwner, CreatedAt: t0}); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a member of no brand: %v", err)
	}
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "not an address", Role: "admin"}); svc.ErrorCode(err) != svc.EINVALID {
		t.Fatalf("a bad member: %v", err)
	}
	added, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: " Ann@Shop.example ", Role: svc.RoleOwner, CreatedAt: t0})
	if err != nil || !added {
		t.Fatalf("add: %v %v", added, err)
	}
	for _, m := range []*svc.Member{
		{BrandID: "br_1", Email: "bob@shop.example", Role: svc.RoleViewer, CreatedAt: t0},
		{BrandID: "br_2", Email: "bob@shop.example", Role: svc.RoleOwner, CreatedAt: t0},
	} {
		if _, err := s.PutMember(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Member(ctx, "br_1", "ann@shop.example")
	if err != nil || got.Role != svc.RoleOwner || got.Digest || !got.CreatedAt.Equal(t0) {
		t.Fatalf("member %+v, %v", got, err)
	}
	if ms, err := s.Members(ctx, "br_1"); err != nil || len(ms) != 2 || ms[0].Email != "ann@shop.example" || ms[1].Email != "bob@shop.example" {
		t.Fatalf("members of br_1: %v", err)
	}
	if ms, err := s.MemberBrands(ctx, "bob@shop.example"); err != nil || len(ms) != 2 || ms[0].BrandID != "br_1" || ms[1].Role != svc.RoleOwner {
		t.Fatalf("bob's brands: %v", err)
	}
	if ms, err := s.Members(ctx, ""); err != nil || len(ms) != 3 {
		t.Fatalf("every member: %d %v", len(ms), err)
	}

	// The last owner stays, demoted or removed; a second owner frees them.
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "ann@shop.example", Role: svc.RoleViewer}); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("the last owner demoted: %v", err)
	}
	if err := s.RemoveMember(ctx, "br_1", "ann@shop.example"); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("the last owner removed: %v", err)
	}
	if err := s.SetDigest(ctx, "br_1", "bob@shop.example", true); err != nil {
		t.Fatal(err)
	}
	if added, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "bob@shop.example", Role: svc.RoleOwner}); err != nil || added {
		t.Fatalf("promote: %v %v", added, err)
	}
	if m, _ := s.Member(ctx, "br_1", "bob@shop.example"); m.Role != svc.RoleOwner || !m.Digest || !m.CreatedAt.Equal(t0) {
		t.Fatalf("a role change lost the rest: %+v", m)
	}
	if err := s.RemoveMember(ctx, "br_1", "ann@shop.example"); err != nil {
		t.Fatalf("an owner of two removed: %v", err)
	}
	if err := s.RemoveMember(ctx, "br_1", "ann@shop.example"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("removed twice: %v", err)
	}
	if err := s.SetDigest(ctx, "br_1", "ann@shop.example", true); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("digest of a non-member: %v", err)
	}

	// Sessions end with the last membership, not before.
	open := func(email string) [32]byte {
		t.Helper()
		token, l := svc.NewMemberSignInLink(email, "cookie", t0)
		if err := s.CreateSignInLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		_, sess := svc.NewDashboardSession("", t0)
		if err := s.RedeemSignInLink(ctx, svc.HashSecret(token), t0, sess); err != nil {
			t.Fatal(err)
		}
		return sess.Hash
	}
	bob := open("bob@shop.example")
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "cy@shop.example", Role: svc.RoleOwner, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveMember(ctx, "br_1", "bob@shop.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DashboardSession(ctx, bob, t0); err != nil {
		t.Fatalf("a member of another brand lost their session: %v", err)
	}
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_2", Email: "dee@shop.example", Role: svc.RoleOwner, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveMember(ctx, "br_2", "bob@shop.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DashboardSession(ctx, bob, t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a member of no brand kept their session: %v", err)
	}
}

// testMemberSessions checks a member's link and sessions: the link's
// address and browser binding, the sliding end, the list, and ending all
// but one.
func testMemberSessions(t *testing.T, s svc.Store) {
	token, l := svc.NewMemberSignInLink("ann@shop.example", "browser-cookie", t0)
	if err := s.CreateSignInLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	got, err := s.SignInLink(ctx, svc.HashSecret(token), t0.Add(time.Minute))
	if err != nil || got.Email != "ann@shop.example" || got.BrandID != "" || got.Binding != svc.HashSecret("browser-cookie") {
		t.Fatalf("link %+v, %v", got, err)
	}
	if _, err := s.SignInLink(ctx, svc.HashSecret(token), t0.Add(svc.SignInLinkTTL)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an expired link: %v", err)
	}
	cmdToken, cmdLink := svc.NewSignInLink("br_1", t0)
	if err := s.CreateSignInLink(ctx, cmdLink); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SignInLink(ctx, svc.HashSecret(cmdToken), t0); err != nil || got.Binding != ([32]byte{}) || got.BrandID != "br_1" {
		t.Fatalf("a command's link: %+v, %v", got, err)
	}
	_, first := svc.NewDashboardSession("", t0)
	first.UserAgent, first.IP = "Firefox on Linux", "192.0.2.1"
	if err := s.RedeemSignInLink(ctx, svc.HashSecret(token), t0.Add(time.Minute), first); err != nil {
		t.Fatal(err)
	}
	if first.Email != "ann@shop.example" || first.Operator() {
		t.Fatalf("session %+v", first)
	}
	if _, err := s.SignInLink(ctx, svc.HashSecret(token), t0.Add(time.Minute)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a used link: %v", err)
	}
	var hashes [][32]byte
	for i := range 2 {
		tok, l := svc.NewMemberSignInLink("ann@shop.example", "b", t0.Add(time.Duration(i+2)*time.Minute))
		if err := s.CreateSignInLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		_, sess := svc.NewDashboardSession("", t0.Add(time.Duration(i+2)*time.Minute))
		if err := s.RedeemSignInLink(ctx, svc.HashSecret(tok), t0.Add(time.Duration(i+2)*time.Minute), sess); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, sess.Hash)
	}

	// Use slides the end: 29 days on, the first session is used, and it
	// lives 30 days from then while an unused one ends.
	later := t0.Add(29 * 24 * time.Hour)
	if err := s.TouchDashboardSession(ctx, first.Hash, later); err != nil {
		t.Fatal(err)
	}
	end := t0.Add(31 * 24 * time.Hour)
	sess, err := s.DashboardSession(ctx, first.Hash, end)
	if err != nil || !sess.LastSeen.Equal(later) || !sess.ExpiresAt.Equal(later.Add(svc.SessionTTL)) || sess.UserAgent != "Firefox on Linux" || sess.IP != "192.0.2.1" {
		t.Fatalf("a used session 31 days on: %+v, %v", sess, err)
	}
	if _, err := s.DashboardSession(ctx, hashes[0], end); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an unused session 31 days on: %v", err)
	}
	list, err := s.DashboardSessions(ctx, "ann@shop.example", t0.Add(time.Hour))
	if err != nil || len(list) != 3 || list[0].Hash != first.Hash || list[1].Hash != hashes[1] {
		t.Fatalf("sessions: %d, %v", len(list), err)
	}
	if others, err := s.DashboardSessions(ctx, "", t0); err != nil || len(others) != 0 {
		t.Fatalf("sessions without an address: %d %v", len(others), err)
	}
	n, err := s.EndMemberSessions(ctx, "ann@shop.example", first.Hash, t0.Add(time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("end others: %d %v", n, err)
	}
	if list, _ := s.DashboardSessions(ctx, "ann@shop.example", t0.Add(time.Hour)); len(list) != 1 || list[0].Hash != first.Hash {
		t.Fatalf("left: %d", len(list))
	}
	if n, err := s.EndMemberSessions(ctx, "ann@shop.example", [32]byte{}, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("end all: %d %v", n, err)
	}
	// The retention job deletes sessions that expired, with their address.
	_, old := svc.NewDashboardSession("", t0)
	old.Email, old.IP = "bob@shop.example", "192.0.2.9"
	if err := s.CreateDashboardSession(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteExpired(ctx, t0, old.ExpiresAt, 100); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.DashboardSessions(ctx, "bob@shop.example", t0); len(list) != 0 {
		t.Fatal("an expired session was kept")
	}
}

// testAuditLog checks that audit events are kept by brand, newest first,
// paged, and deleted with the events of their age.
func testAuditLog(t *testing.T, s svc.Store) {
	for i, a := range []string{svc.AuditSignIn, svc.AuditKeyCreate, svc.AuditSettings} {
		e := &svc.AuditEvent{BrandID: "br_1", At: t0.Add(time.Duration(i) * time.Hour), Actor: "ann@shop.example", IP: "192.0.2.1", Action: a, Detail: "d"}
		if err := s.AppendAudit(ctx, e); err != nil || e.ID == 0 {
			t.Fatal(err, e.ID)
		}
	}
	if err := s.AppendAudit(ctx, &svc.AuditEvent{BrandID: "br_2", At: t0, Actor: "operator", Action: svc.AuditSignIn}); err != nil {
		t.Fatal(err)
	}
	got, err := s.AuditEvents(ctx, "br_1", 0, 2)
	if err != nil || len(got) != 2 || got[0].Action != svc.AuditSettings || got[1].Action != svc.AuditKeyCreate || got[0].IP != "192.0.2.1" || !got[0].At.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("newest two: %v", err)
	}
	more, err := s.AuditEvents(ctx, "br_1", got[1].ID, 10)
	if err != nil || len(more) != 1 || more[0].Action != svc.AuditSignIn {
		t.Fatalf("the page after: %d %v", len(more), err)
	}
	if _, err := s.DeleteExpired(ctx, t0.Add(90*time.Minute), t0.Add(90*time.Minute), 100); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.AuditEvents(ctx, "br_1", 0, 10); len(left) != 1 || left[0].Action != svc.AuditSettings {
		t.Fatalf("after the retention: %d left", len(left))
	}
}

// testDigestClaims checks that a member's digest of a week is claimed
// once, and that its unsubscribe token turns the digest off.
func testDigestClaims(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "ann@shop.example", Role: svc.RoleOwner, Digest: true, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	won, err := s.ClaimDigest(ctx, "br_1", "ann@shop.example", "2026-11-16", svc.HashSecret("u1"), t0)
	if err != nil || !won {
		t.Fatalf("first claim: %v %v", won, err)
	}
	if won, err := s.ClaimDigest(ctx, "br_1", "ann@shop.example", "2026-11-16", svc.HashSecret("u2"), t0); err != nil || won {
		t.Fatalf("second claim of the week: %v %v", won, err)
	}
	if won, err := s.ClaimDigest(ctx, "br_1", "ann@shop.example", "2026-11-23", svc.HashSecret("u3"), t0); err != nil || !won {
		t.Fatalf("the next week: %v %v", won, err)
	}
	if _, err := s.UnsubscribeDigest(ctx, svc.HashSecret("u2")); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("a losing claim's token: %v", err)
	}
	m, err := s.UnsubscribeDigest(ctx, svc.HashSecret("u1"))
	if err != nil || m.Email != "ann@shop.example" || m.BrandID != "br_1" {
		t.Fatalf("unsubscribe: %+v %v", m, err)
	}
	if m, _ := s.Member(ctx, "br_1", "ann@shop.example"); m.Digest {
		t.Fatal("still subscribed")
	}
	if _, err := s.UnsubscribeDigest(ctx, svc.HashSecret("u1")); err != nil {
		t.Fatalf("a second click: %v", err)
	}
	// Claims are kept as long as the events: then the week may not be
	// claimed again by mistake, and old unsubscribe links lapse.
	if _, err := s.DeleteExpired(ctx, t0.Add(time.Hour), t0.Add(time.Hour), 100); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UnsubscribeDigest(ctx, svc.HashSecret("u1")); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an unsubscribe link past the retention: %v", err)
	}
}

// testPasskeys checks members' passkeys: by member and by user handle,
// one id once, a use recorded, removal; a ceremony finishes once and not
// after it expires; and a member removed from their last brand loses
// their passkeys.
func testPasskeys(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "ann@shop.example", Role: svc.RoleViewer, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	handle := []byte("handle-of-ann-0123456789abcdef01")
	for i, id := range []string{"cred-1", "cred-2"} {
		p := &svc.Passkey{ID: []byte(id), Email: "ann@shop.example", UserHandle: handle, Name: "Chrome on Linux", Credential: []byte(`{"n":1}`),
			CreatedAt: t0.Add(time.Duration(i) * time.Minute), LastUsed: t0}
		if err := s.AddPasskey(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPasskey(ctx, &svc.Passkey{ID: []byte("cred-1"), Email: "eve@shop.example", UserHandle: []byte("x"), Credential: []byte("{}"), CreatedAt: t0, LastUsed: t0}); svc.ErrorCode(err) != svc.ECONFLICT {
		t.Fatalf("a taken credential id: %v", err)
	}
	got, err := s.PasskeysByHandle(ctx, handle)
	if err != nil || len(got) != 2 || string(got[0].ID) != "cred-1" || got[0].Email != "ann@shop.example" || got[0].Name != "Chrome on Linux" || !got[1].CreatedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("by handle: %d, %v", len(got), err)
	}
	if err := s.UsePasskey(ctx, []byte("cred-2"), []byte(`{"n":2}`), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.UsePasskey(ctx, []byte("nope"), []byte(`{}`), t0); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("use of an unknown passkey: %v", err)
	}
	mine, _ := s.Passkeys(ctx, "ann@shop.example")
	if len(mine) != 2 || string(mine[1].Credential) != `{"n":2}` || !mine[1].LastUsed.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after a use: %+v", mine)
	}
	if err := s.RemovePasskey(ctx, "eve@shop.example", []byte("cred-1")); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("another member removed a passkey: %v", err)
	}
	if err := s.RemovePasskey(ctx, "ann@shop.example", []byte("cred-1")); err != nil {
		t.Fatal(err)
	}

	key := svc.HashSecret("cookie")
	if err := s.PutCeremony(ctx, key, []byte("first"), t0, t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCeremony(ctx, key, []byte("second"), t0, t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if data, err := s.TakeCeremony(ctx, key, t0.Add(time.Minute)); err != nil || string(data) != "second" {
		t.Fatalf("take: %q %v", data, err)
	}
	if _, err := s.TakeCeremony(ctx, key, t0.Add(time.Minute)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("taken twice: %v", err)
	}
	if err := s.PutCeremony(ctx, key, []byte("late"), t0, t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeCeremony(ctx, key, t0.Add(5*time.Minute)); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an expired ceremony: %v", err)
	}

	_, sess := svc.NewDashboardSession("", t0)
	sess.Email = "ann@shop.example"
	if err := s.CreateDashboardSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if got, err := s.DashboardSession(ctx, sess.Hash, t0); err != nil || got.Email != "ann@shop.example" {
		t.Fatalf("a passkey's session: %+v %v", got, err)
	}
	if _, err := s.PutMember(ctx, &svc.Member{BrandID: "br_1", Email: "cy@shop.example", Role: svc.RoleOwner, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveMember(ctx, "br_1", "ann@shop.example"); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.Passkeys(ctx, "ann@shop.example"); len(left) != 0 {
		t.Fatalf("a removed member kept %d passkeys", len(left))
	}
}
