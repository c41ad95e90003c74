package storetest

import (
	"testing"

	"github.com/svc-project/svc"
)

// testSettings checks that a setting is unset until set, and that setting
// it again replaces its value.
func testSettings(t *testing.T, s svc.Store) {
	if v, err := s.Setting(ctx, svc.SettingPublicURL); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("an unset setting: %q, %v", v, err)
	}
	for _, want := range []string{"https://svc.example", "https://proof.example/"} {
		if err := s.SetSetting(ctx, svc.SettingPublicURL, want); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Setting(ctx, svc.SettingPublicURL); err != nil || got != want {
			t.Fatalf("setting: %q, %v; want %q", got, err, want)
		}
	}
	if v, err := s.Setting(ctx, "another"); svc.ErrorCode(err) != svc.ENOTFOUND {
		t.Fatalf("another setting: %q, %v", v, err)
	}
}
