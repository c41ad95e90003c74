package shops

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	body := []byte(`{"id":1}`)
	good := base64.StdEncoding.EncodeToString(Sign(body, "s3cret"))
	for _, tc := range []struct {
		name, secret, sig string
		want              bool
	}{
		{"right", "s3cret", good, true},
		{"with spaces around", "s3cret", " " + good + "\n", true},
		{"other secret", "other", good, false},
		{"no secret", "", base64.StdEncoding.EncodeToString(Sign(body, "")), false},
		{"no signature", "s3cret", "", false},
		{"not base64", "s3cret", "%%%", false},
		{"hex, not base64", "s3cret", "0a1b2c", false},
		{"truncated", "s3cret", good[:20], false},
	} {
		if got := Verify(body, tc.secret, tc.sig); got != tc.want {
			t.Errorf("%s: %t", tc.name, got)
		}
	}
}

func TestIsWooCommercePing(t *testing.T) {
	for body, want := range map[string]bool{
		"webhook_id=12": true, "webhook_id=": false, "webhook_id=1x": false,
		"webhook_id=1&x=2": false, `{"webhook_id":1}`: false, "": false,
	} {
		if IsWooCommercePing([]byte(body)) != want {
			t.Errorf("%q: want %t", body, want)
		}
	}
}

// Rows of Shopify's export make orders by Name; a quoted field over two
// lines does not shift the line numbers; a bad row is reported with its
// line and the next order is read.
func TestReadShopifyCSV(t *testing.T) {
	csv := "\ufeffName,Financial Status,Created at,Currency,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Cancelled at,Id,Shipping Country,Shipping City\n" +
		"#1001,paid,2026-03-05 14:22:10 -0500,EUR,2,\"Mug,\nlarge\",9.50,MUG-L,,4001,de,Berlin\n" +
		"#1001,,,,1,Spoon,1.00,,,,,\n" +
		"#1002,paid,2026-03-05 15:00:00 -0500,EUR,x,Mug,9.50,MUG-L,,4002,,\n" +
		"#1003,paid,2026-03-06 09:00:00 -0500,EUR,1,Mug,9.50,MUG-L,2026-03-06 10:00:00 -0500,4003,,\n" +
		"#1004,paid,yesterday,EUR,1,Mug,9.50,MUG-L,,4004,,\n"
	var recs []Record
	err := ReadShopifyCSV(strings.NewReader(csv), "br_1", func(sku, name string) CSVProduct {
		if sku != "" {
			return CSVProduct{ProductID: "p-" + sku, Title: &name}
		}
		return CSVProduct{ProductID: name, Title: &name}
	}, func(r Record) error { recs = append(recs, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	o := recs[0].Action.Order
	if recs[0].Line != 2 || o.Order.OrderID != "4001" || len(o.Order.Items) != 2 || o.Order.Items[0].ProductID != "p-MUG-L" ||
		*o.Order.Items[0].Title != "Mug, large" || o.Order.Items[1].ProductID != "Spoon" || *o.Order.Items[0].Quantity != 2 ||
		*o.Context.Timestamp != "2026-03-05T19:22:10Z" || *o.Context.Country != "DE" || *o.Context.City != "Berlin" {
		t.Fatalf("first order %+v, line %d", o, recs[0].Line)
	}
	if recs[1].Line != 5 || recs[1].Err == nil || !strings.Contains(recs[1].Err.Error(), "line 5: Lineitem quantity") {
		t.Fatalf("bad quantity: %+v", recs[1])
	}
	if recs[2].Line != 6 || recs[2].Action.Kind != Ignore {
		t.Fatalf("cancelled order: %+v", recs[2])
	}
	if recs[3].Line != 7 || recs[3].Err == nil || !strings.Contains(recs[3].Err.Error(), "Created at") {
		t.Fatalf("bad time: %+v", recs[3])
	}
	if err := ReadShopifyCSV(strings.NewReader("a,b\n1,2\n"), "br_1", nil, nil); err == nil || !strings.Contains(err.Error(), "Name") {
		t.Fatalf("a CSV that is not Shopify's: %v", err)
	}
}
