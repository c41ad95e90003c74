//go:build race

package matcheval

// raceEnabled: the race detector makes the lookups of every set ten times
// slower; TestShops then measures WDC Products alone.
const raceEnabled = true
