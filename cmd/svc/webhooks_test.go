package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// TestWebhookSecretsEndToEnd: brands set stores the secrets (one from
// standard input), prints the webhook URLs and never a secret; a running
// server takes a webhook signed with the new secret within a second, and
// the secret is in no log line, no brands list, no export.
func TestWebhookSecretsEndToEnd(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--log-level", "debug"}, noEnv, pw, logs)
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() { cancel(); <-done })
	base := readURL(t, bufio.NewReader(pr))
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	var addOut bytes.Buffer
	if err := run(context.Background(), []string{"brands", "add", "--data", dir, "--name", "Hooks", "--public-url", "https://svc.example"}, noEnv, &addOut, io.Discard); err != nil {
		t.Fatal(err)
	}
	brand := strings.Fields(strings.SplitN(addOut.String(), "\n", 2)[0])[1]
	if want := "https://svc.example/api/connect/shopify/" + brand; !strings.Contains(addOut.String(), want) {
		t.Fatalf("brands add does not print %s:\n%s", want, addOut.String())
	}

	const shopify, woo = "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", "wc-s3cr3t!#%&"
	var out bytes.Buffer
	env := environment{getenv: noEnv, stdout: &out, stderr: io.Discard, stdin: strings.NewReader(woo + "\n")}
	if err := brandsSet(context.Background(), env, []string{"--data", dir, "--brand", brand, "--shopify-secret", shopify,
		"--woocommerce-secret", "-", "--public-url", "https://svc.example", "--json"}); err != nil {
		t.Fatal(err)
	}
	var set struct {
		Webhooks map[string]struct {
			URL       string `json:"url"`
			SecretSet bool   `json:"secret_set"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(out.Bytes(), &set); err != nil {
		t.Fatal(err)
	}
	if h := set.Webhooks["woocommerce"]; !h.SecretSet || h.URL != "https://svc.example/api/connect/woocommerce/"+brand || !set.Webhooks["shopify"].SecretSet {
		t.Fatalf("brands set --json: %s", out.String())
	}
	text := runCmd(t, "brands", "set", "--data", dir, "--brand", brand, "--min-viewers", "2")
	printed := out.String() + text + addOut.String() + runCmd(t, "brands", "list", "--data", dir, "--json") + runCmd(t, "brands", "list", "--data", dir)
	if !strings.Contains(text, "(secret set)") {
		t.Fatalf("brands set does not say the secrets are set:\n%s", text)
	}

	order := []byte(`{"id":4501,"currency":"EUR","created_at":null,"line_items":[{"id":1,"product_id":77,"sku":"S-77","title":"Mug","quantity":3,"price":"12.00"}],"shipping_address":{"country_code":"FR","city":"Lyon","address1":"1 rue X"}}`)
	mac := hmac.New(sha256.New, []byte(shopify))
	mac.Write(order)
	testwait.Eventually(t, func() error {
		req, _ := http.NewRequest("POST", base+"/api/connect/shopify/"+brand, bytes.NewReader(order))
		req.Header.Set("X-Shopify-Topic", "orders/create")
		req.Header.Set("X-Shopify-Webhook-Id", "e2e-1")
		req.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		req.Header.Set("User-Agent", "Shopify-Captain-Hook")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return status(fmt.Sprintf("webhook: %s", b), res.StatusCode, 200)
	})
	if p := proof(t, base, brand, "77"); p["purchases"] != 1.0 || p["units"] != 3.0 {
		t.Fatalf("proof after the webhook: %v", p)
	}
	export := filepath.Join(t.TempDir(), "export.jsonl")
	runCmd(t, "export", "--data", dir, "--brand", brand, "--out", export)
	exported, _ := os.ReadFile(export)
	if !bytes.Contains(exported, []byte(`"city":"Lyon"`)) || bytes.Contains(exported, []byte("rue X")) {
		t.Fatalf("export: %s", exported)
	}
	for what, s := range map[string]string{"the commands' output": printed, "the server's log": logs.String(), "the export": string(exported)} {
		for _, secret := range []string{shopify, woo} {
			if strings.Contains(s, secret) {
				t.Errorf("%s holds a secret:\n%s", what, s)
			}
		}
	}
	if !strings.Contains(logs.String(), "/api/connect/shopify/") {
		t.Fatalf("the debug log has no line of the webhook, so the check above saw nothing:\n%s", logs.String())
	}
}
