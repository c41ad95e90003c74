package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/svc-project/svc/internal/holdout"
)

// The experiment answers, per arm, the sessions the server put in it when
// their views came, and the orders those sessions made; only with the
// brand's key.
func TestExperiment(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b, err := f.store.Brand(ctx, "br_open")
	if err != nil {
		t.Fatal(err)
	}
	b.Holdout = 50
	if err := f.store.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	key := []string{"X-svc-Api-Key", f.keys["br_open"]}
	want := map[string]*[3]float64{holdout.ArmShown: {}, holdout.ArmHeldOut: {}} // sessions, converted, revenue
	for i := range 120 {
		session := fmt.Sprint("session-", i)
		arm := holdout.ArmOf(session, 50)
		if r := f.do("POST", "/api/collect/product-view", view("br_open", "p1", map[string]any{"session_id": session}), key...); r.status != 200 {
			t.Fatalf("view: %d %s", r.status, r.body)
		}
		want[arm][0]++
		if i%3 == 0 {
			body := purchase("br_open", fmt.Sprint("o", i), "p1", 2)
			body["context"] = map[string]any{"session_id": session}
			if r := f.do("POST", "/api/collect/product-purchase", body, key...); r.status != 200 {
				t.Fatalf("purchase: %d %s", r.status, r.body)
			}
			want[arm][1]++
			want[arm][2] += 21
		}
	}
	// An order of a session never seen in a view belongs to no arm.
	body := purchase("br_open", "stray", "p1", 1)
	body["context"] = map[string]any{"session_id": "never-viewed"}
	f.do("POST", "/api/collect/product-purchase", body, key...)

	r := f.do("GET", "/api/svc/experiment?brand_id=br_open", nil, key...)
	if r.status != 200 {
		t.Fatalf("experiment: %d %s", r.status, r.body)
	}
	m := r.json(t)
	if m["holdout"] != 50.0 {
		t.Errorf("holdout %v", m["holdout"])
	}
	arms := m["arms"].(map[string]any)
	conv := map[string]float64{}
	for name, w := range want {
		a := arms[name].(map[string]any)
		if a["sessions"] != w[0] || a["converted"] != w[1] {
			t.Errorf("%s: %v, want %v sessions and %v converted", name, a, w[0], w[1])
		}
		conv[name] = w[1] / w[0]
		if math.Abs(a["conversion"].(float64)-conv[name]) > 1e-12 || math.Abs(a["revenue_per_session"].(float64)-w[2]/w[0]) > 1e-9 {
			t.Errorf("%s: %v", name, a)
		}
	}
	if want[holdout.ArmShown][0] < 40 || want[holdout.ArmHeldOut][0] < 40 {
		t.Fatalf("a 50%% holdout split 120 sessions %v", want)
	}
	d := m["difference"].(map[string]any)
	ci := d["ci95"].([]any)
	if math.Abs(d["conversion"].(float64)-(conv[holdout.ArmShown]-conv[holdout.ArmHeldOut])) > 1e-12 ||
		!(ci[0].(float64) < d["conversion"].(float64) && d["conversion"].(float64) < ci[1].(float64)) || d["significant"] != false {
		t.Errorf("difference %v", d)
	}
	if m := d["revenue_per_session_interval"]; m != string(holdout.Normal) && m != string(holdout.Bootstrap) {
		t.Errorf("revenue per session's interval found by %v", m)
	}

	for _, c := range []struct {
		name    string
		path    string
		headers []string
		status  int
	}{
		{"no key", "/api/svc/experiment?brand_id=br_open", nil, 401},
		{"no key, from the brand's own site", "/api/svc/experiment?brand_id=br_open", []string{"Origin", "https://shop.example"}, 401},
		{"another brand's key", "/api/svc/experiment?brand_id=br_open", []string{"X-svc-Api-Key", f.keys["br_locked"]}, 401},
		{"a revoked key", "/api/svc/experiment?brand_id=br_open", []string{"X-svc-Api-Key", f.revoked}, 401},
		{"no brand", "/api/svc/experiment", key, 400},
	} {
		if r := f.do("GET", c.path, nil, c.headers...); r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
		}
	}
}

// Before any session, the experiment says nothing rather than dividing by zero.
func TestExperimentEmpty(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do("GET", "/api/svc/experiment?brand_id=br_locked", nil, "X-svc-Api-Key", f.keys["br_locked"])
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	d := r.json(t)["difference"].(map[string]any)
	if d["ci95"] != nil || d["significant"] != false {
		t.Errorf("difference without sessions: %v", d)
	}
}

// Views sent in a batch are put in their session's arm as single ones are.
func TestExperimentCountsBatchedViews(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	b, _ := f.store.Brand(ctx, "br_open")
	b.Holdout = 50
	if err := f.store.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := f.auth.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	var events []any
	want := map[string]float64{}
	for i := range 40 {
		s := fmt.Sprint("batched-", i)
		events = append(events, typed("product-view", view("br_open", "p1", map[string]any{"session_id": s}), ""))
		want[holdout.ArmOf(s, 50)]++
	}
	f.results("br_open", batch(events...))
	arms := f.do("GET", "/api/svc/experiment?brand_id=br_open", nil, "X-svc-Api-Key", f.keys["br_open"]).json(t)["arms"].(map[string]any)
	for arm, n := range want {
		if got := arms[arm].(map[string]any)["sessions"]; got != n {
			t.Errorf("%s: %v sessions, want %v", arm, got, n)
		}
	}
}
