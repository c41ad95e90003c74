package httpapi

import (
	"bytes"
	"testing"
)

// BenchmarkDecodeBatch reads a batch of 100 views as the batch endpoint
// does: the body's events, then each one's type and the event itself. Per
// event it is to be compared with BenchmarkDecodeView.
func BenchmarkDecodeBatch(b *testing.B) {
	event := append([]byte(`{"type":"product-view",`), benchView[1:]...)
	body := []byte(`{"events":[` + string(bytes.Repeat(append(event, ','), 99)) + string(event) + `]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		raws, err := batchEvents(body)
		if err != nil || len(raws) != 100 {
			b.Fatal(len(raws), err)
		}
		for _, raw := range raws {
			if _, _, _, fields, bad := readBatchEvent(raw); fields != nil || bad != nil {
				b.Fatal(fields, bad)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/event")
}
