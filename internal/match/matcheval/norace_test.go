//go:build !race

package matcheval

const raceEnabled = false
