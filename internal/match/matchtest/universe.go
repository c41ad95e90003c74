// Package matchtest generates realistic catalogs and search queries to
// measure matching: shops in several countries selling real-looking
// products of real makers, each shop titling them in its own style, and
// queries that name those products the way search results do, plus
// near-misses that name something else.
package matchtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// item is a product of a maker, before a shop titles it.
type item struct {
	maker    string
	line     string   // "iPhone 15 Pro"
	kind     string   // what it is, "Smartphone"
	variant  []string // capacity, size: "128GB"
	color    string
	sku      string
	category string
}

type line struct {
	maker, name, kind, category string
	models                      []string
	variants                    []string
	colors                      []string
}

// lines are the product lines the generator draws from.
var lines = []line{
	{"Apple", "iPhone", "Smartphone", "phones", []string{"13", "14", "15", "15 Pro", "15 Pro Max", "16", "16 Plus", "16 Pro"}, []string{"128GB", "256GB", "512GB"}, []string{"Black", "Blue", "Natural Titanium", "Pink", "White"}},
	{"Samsung", "Galaxy", "Smartphone", "phones", []string{"S23", "S23 Ultra", "S24", "S24+", "S24 Ultra", "A54", "A35", "Z Flip5"}, []string{"128GB", "256GB", "512GB"}, []string{"Phantom Black", "Cream", "Lavender", "Titanium Gray"}},
	{"Google", "Pixel", "Smartphone", "phones", []string{"7a", "8", "8 Pro", "9", "9 Pro"}, []string{"128GB", "256GB"}, []string{"Obsidian", "Porcelain", "Hazel", "Bay"}},
	{"Sony", "WH-1000XM5", "Wireless Noise Cancelling Headphones", "audio", []string{""}, nil, []string{"Black", "Silver", "Midnight Blue"}},
	{"Sony", "WF-1000XM5", "True Wireless Earbuds", "audio", []string{""}, nil, []string{"Black", "Silver"}},
	{"Bose", "QuietComfort", "Headphones", "audio", []string{"45", "Ultra", "SE"}, nil, []string{"Black", "White Smoke", "Sandstone"}},
	{"JBL", "Flip", "Portable Bluetooth Speaker", "audio", []string{"5", "6"}, nil, []string{"Black", "Blue", "Red", "Squad", "Teal"}},
	{"JBL", "Charge", "Waterproof Speaker", "audio", []string{"4", "5"}, nil, []string{"Black", "Blue", "Grey"}},
	{"Logitech", "MX Master", "Wireless Mouse", "computing", []string{"3S", "3"}, nil, []string{"Graphite", "Pale Grey", "Black"}},
	{"Logitech", "MX Keys", "Wireless Keyboard", "computing", []string{"S", "Mini"}, []string{"US Layout", "DE Layout", "UK Layout"}, []string{"Graphite", "Pale Grey"}},
	{"Anker", "PowerCore", "Power Bank", "computing", []string{"10000", "20000", "26800"}, nil, []string{"Black", "White"}},
	{"Dell", "XPS", "Laptop", "computing", []string{"13", "14", "15", "16"}, []string{"16GB RAM 512GB SSD", "32GB RAM 1TB SSD"}, []string{"Platinum Silver", "Graphite"}},
	{"Dyson", "V15 Detect", "Cordless Vacuum Cleaner", "home", []string{"Absolute", "Total Clean"}, nil, []string{"Yellow/Nickel", "Gold"}},
	{"Dyson", "V8", "Cordless Vacuum", "home", []string{"Absolute", "Animal", "Origin"}, nil, []string{"Silver/Nickel", "Purple"}},
	{"Philips", "Sonicare", "Electric Toothbrush", "home", []string{"4100", "6100", "DiamondClean 9000"}, nil, []string{"White", "Black", "Pink"}},
	{"Nespresso", "Vertuo", "Coffee Machine", "kitchen", []string{"Next", "Pop", "Plus"}, nil, []string{"Matt Black", "Coconut White", "Pacific Blue"}},
	{"De'Longhi", "Magnifica", "Bean to Cup Coffee Machine", "kitchen", []string{"S ECAM22.110", "Evo ECAM290.61", "Start"}, nil, []string{"Black", "Silver"}},
	{"KitchenAid", "Artisan", "Stand Mixer", "kitchen", []string{"5KSM175", "5KSM125"}, []string{"4.8 L"}, []string{"Empire Red", "Almond Cream", "Onyx Black", "Pistachio"}},
	{"Le Creuset", "Signature", "Cast Iron Round Casserole", "kitchen", []string{""}, []string{"20 cm", "24 cm", "28 cm"}, []string{"Volcanic", "Cerise", "Marseille", "Meringue"}},
	{"Tefal", "Ingenio", "Frying Pan Set", "kitchen", []string{"Emotion", "Eco Resist", "Preference"}, []string{"3 pcs", "10 pcs", "13 pcs"}, []string{"Stainless Steel", "Black"}},
	{"Nike", "Air Max", "Sneakers", "shoes", []string{"90", "97", "270", "Plus"}, []string{"EU 40", "EU 41", "EU 42", "EU 43", "EU 44"}, []string{"White", "Black", "Triple White", "Wolf Grey"}},
	{"Adidas", "Ultraboost", "Running Shoes", "shoes", []string{"22", "23", "Light"}, []string{"EU 40", "EU 42", "EU 44"}, []string{"Core Black", "Cloud White", "Solar Red"}},
	{"New Balance", "574", "Sneakers", "shoes", []string{"Core", "Classic"}, []string{"EU 41", "EU 43", "EU 45"}, []string{"Grey", "Navy", "Green"}},
	{"Levi's", "501", "Original Fit Jeans", "fashion", []string{""}, []string{"W30 L32", "W32 L32", "W34 L34", "W36 L32"}, []string{"Stonewash", "Black", "Dark Indigo"}},
	{"Patagonia", "Better Sweater", "Fleece Jacket", "fashion", []string{"Men's", "Women's"}, []string{"S", "M", "L", "XL"}, []string{"Stonewash", "Industrial Green", "New Navy"}},
	{"The North Face", "Nuptse", "Down Jacket", "fashion", []string{"1996 Retro", "Short"}, []string{"S", "M", "L"}, []string{"TNF Black", "Summit Gold"}},
	{"Garmin", "Forerunner", "GPS Running Watch", "sports", []string{"55", "255", "265", "965"}, nil, []string{"Black", "Whitestone", "Aqua"}},
	{"Fitbit", "Charge", "Fitness Tracker", "sports", []string{"5", "6"}, nil, []string{"Obsidian", "Coral", "Porcelain"}},
	{"GoPro", "HERO", "Action Camera", "cameras", []string{"11 Black", "12 Black", "13 Black"}, nil, []string{""}},
	{"Canon", "EOS", "Mirrorless Camera", "cameras", []string{"R50", "R10", "R8"}, []string{"Body Only", "with RF-S 18-45mm Lens"}, []string{"Black", "White"}},
	{"LEGO", "Technic", "Building Set", "toys", []string{"42115 Lamborghini Sian", "42143 Ferrari Daytona SP3", "42141 McLaren F1"}, nil, []string{""}},
	{"LEGO", "City", "Building Set", "toys", []string{"60316 Police Station", "60337 Express Passenger Train", "60350 Lunar Research Base"}, nil, []string{""}},
	{"Nintendo", "Switch", "Console", "toys", []string{"OLED Model", "Lite"}, nil, []string{"White", "Neon Red/Neon Blue", "Turquoise"}},
	{"Amazon", "Kindle", "E-Reader", "computing", []string{"Paperwhite", "Oasis", "Scribe"}, []string{"16GB", "32GB"}, []string{"Black", "Agave Green"}},
	{"Bosch", "Serie 4", "Dishwasher", "home", []string{"SMS4HVI33G", "SMV4HVX45E"}, []string{"60 cm"}, []string{"Silver Inox", "White"}},
	{"Weber", "Spirit", "Gas Barbecue", "home", []string{"E-315", "E-325S", "EP-335"}, nil, []string{"Black", "Sapphire"}},
}

// accessoryTemplates name things sold for a product, not the product.
var accessoryTemplates = []string{
	"Case for %s", "%s Silicone Case", "Screen Protector for %s", "Charger for %s",
	"%s Replacement Strap", "Carrying Case for %s", "%s Replacement Brush Heads", "Stand for %s",
}

func (l line) items(r *rand.Rand) []item {
	var out []item
	variants := l.variants
	if len(variants) == 0 {
		variants = []string{""}
	}
	for _, m := range l.models {
		for _, v := range variants {
			for _, c := range l.colors {
				name := strings.TrimSpace(l.name + " " + m)
				it := item{maker: l.maker, line: name, kind: l.kind, color: c, category: l.category}
				if v != "" {
					it.variant = []string{v}
				}
				prefix := strings.ToUpper(strings.NewReplacer("'", "", " ", "").Replace(l.maker))
				it.sku = fmt.Sprintf("%s-%06d", prefix[:min(3, len(prefix))], r.IntN(1_000_000))
				out = append(out, it)
			}
		}
	}
	return out
}

// accessories are the accessories of a line: products of their own, whose
// titles hold the whole name of what they fit.
func (l line) accessories(r *rand.Rand) []item {
	var out []item
	for _, m := range l.models {
		name := strings.TrimSpace(l.name + " " + m)
		for range 2 {
			t := accessoryTemplates[r.IntN(len(accessoryTemplates))]
			out = append(out, item{maker: l.maker, line: fmt.Sprintf(t, name), category: l.category, color: pick(r, []string{"Black", "Clear", "Blue", ""}),
				sku: fmt.Sprintf("ACC-%06d", r.IntN(1_000_000))})
		}
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
