package match

import "testing"

// Near misses a review of 11-30's readings of codes found: each query
// names another product than the one listed first, which the readings
// as first written answered (a weight, a light's colour, a processor
// two laptops share, a colour in a maker's suffix or after a slash, a
// capacity after a slash, a tablet's 4G, a camera's kit against its
// body). The catalog is padded with the code tier's receivers.
func TestNearMissesOfCodeForms(t *testing.T) {
	for _, tc := range []struct {
		catalog []string
		query   string
	}{
		{[]string{"Salter Arc Glass Electronic Kitchen Scale 5000g", "Salter Disc Electronic Kitchen Scale 3000g"},
			"Salter Aquatronic Glass Electronic Kitchen Scale 5000g"},
		{[]string{"Philips LED Filament Bulb Warm White 2700K", "Philips LED Spot Cool White 4000K"},
			"Philips LED Filament Candle Warm White 2700K"},
		{[]string{"Lenovo IdeaPad 5 14 Laptop Intel Core i5-1135G7 16GB 512GB SSD", "Lenovo IdeaPad 5 Pro 16 Laptop AMD Ryzen 7 5800H 16GB 1TB SSD"},
			"Lenovo IdeaPad 5 Pro 14 Laptop Intel Core i5-1135G7 16GB 512GB SSD"},
		{[]string{"Microsoft Surface Laptop 3 13.5 Intel Core i7-1065G7 16GB 256GB SSD Platinum", "Microsoft Surface Go 2 Intel Pentium 4425Y 4GB 64GB"},
			"Microsoft Surface Pro 7 12.3 Intel Core i7-1065G7 16GB 256GB SSD Platinum"},
		{[]string{"NETGEAR Orbi AC3000 Tri-Band WiFi Mesh System", "NETGEAR Orbi Pro WiFi 6 AX6000 Mesh System"},
			"NETGEAR Orbi Pro AC3000 Tri-Band WiFi Mesh System"},
		{[]string{"Corsair Vengeance LPX 16GB DDR4-3200 CL16 Memory Kit"},
			"Corsair Vengeance RGB Pro 16GB DDR4-3200 CL16 Memory Kit"},
		{[]string{"Apple iPad 10.2 32GB Wi-Fi Space Grey", "Apple iPad Air 10.9 64GB Wi-Fi + 4G Sky Blue"},
			"Apple iPad 10.2 32GB Wi-Fi + 4G Space Grey"},
		{[]string{"Amazon Kindle Paperwhite 8GB Black", "Amazon Kindle Oasis 32GB 4G Graphite"},
			"Amazon Kindle Paperwhite 8GB 4G Black"},
		{[]string{"KitchenAid Artisan 5KSM175PS Stand Mixer 4.8L Empire Red"},
			"KitchenAid Artisan 5KSM175PSEAC Stand Mixer 4.8L Almond Cream"},
		{[]string{"Samsung Galaxy S21 5G SM-G991B 128GB Phantom Black"},
			"Samsung Galaxy S21 5G SM-G991BZVDEUB 128GB"},
		{[]string{"Sony WH-1000XM4/B Wireless Noise Cancelling Headphones"},
			"Sony WH-1000XM4/S Wireless Noise Cancelling Headphones"},
		{[]string{"Brother LC-3219XL/C Ink Cartridge High Yield"},
			"Brother LC-3219XL/M Ink Cartridge High Yield"},
		{[]string{"Kingston FURY Beast 8GB DDR4 3200MHz CL16 KF432C16BB"},
			"Kingston FURY Beast DDR4 3200MHz CL16 KF432C16BB/16"},
		{[]string{"Nikon D3400 DSLR Camera Body"},
			"Nikon D3400 + AF-P 18-55mm VR Kit"},
	} {
		x := codeTierIndex(append(tc.catalog, codeTierCatalog...)...)
		if h, ok := x.Lookup("b", Query{Title: tc.query, MinConfidence: 0.01}); ok && h.Ref == 1 {
			t.Errorf("Lookup(%q) = %q (%s, %.3f); want not %q", tc.query, h.Title, h.Tier, h.Confidence, tc.catalog[0])
		}
	}
	// Of a Pro and a plain laptop sharing a processor, the plain one's
	// title answers the plain one.
	x := codeTierIndex(append([]string{"Lenovo IdeaPad 5 Pro 14 Laptop Intel Core i5-1135G7 16GB 512GB SSD Storm Grey",
		"Lenovo IdeaPad 5 14 Laptop Intel Core i5-1135G7 16GB 512GB SSD Graphite Grey"}, codeTierCatalog...)...)
	if h, ok := x.Lookup("b", Query{Title: "Lenovo IdeaPad 5 14ITL05 14 inch i5-1135G7 16GB RAM 512GB", MinConfidence: 0.01}); ok && h.Ref == 1 {
		t.Errorf("the plain IdeaPad answered with the Pro: %+v", h)
	}
}
