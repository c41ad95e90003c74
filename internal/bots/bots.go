// Package bots tells known bots and crawlers by their User-Agent, with the
// community-maintained list crawler-user-agents (embedded; see update.sh).
package bots

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

//go:embed crawler-user-agents.json
var listJSON []byte

//go:embed VERSION
var listVersion string

// Version is the version of the embedded list.
func Version() string { return strings.TrimSpace(listVersion) }

// Detector matches User-Agents against the list. Nearly all of its 1,500
// patterns are plain strings: those are found in one Aho-Corasick pass; the
// few real regular expressions run only when a literal they require is there.
// One regexp of all patterns would cost milliseconds per agent in Go's
// linear-time engine; this costs about a microsecond. Safe for concurrent use.
type Detector struct {
	literals *literals
	patterns []gatedPattern

	// The verdicts on agents seen lately: browsers send a few agents over
	// and over, and a lookup costs a twentieth of a match. Bounded: a
	// sender of ever new agents only empties it.
	mu   sync.RWMutex
	seen map[string]bool
}

const (
	maxSeen      = 4096
	maxSeenAgent = 512 // longer agents are matched every time
)

type gatedPattern struct {
	needs string // a literal the agent must contain for the pattern to match; may be empty
	re    *regexp.Regexp
}

// New returns a Detector of the embedded list, which the process compiles
// once; each Detector keeps its own verdicts on the agents it saw.
func New() (*Detector, error) {
	c, err := compiled()
	if err != nil {
		return nil, err
	}
	return &Detector{literals: c.literals, patterns: c.patterns, seen: make(map[string]bool)}, nil
}

// list is the embedded list compiled: read only once built, so every
// Detector of the process shares it. Building the automaton is most of
// what a server's start costs under the race detector, and tests start
// many servers in one process.
type list struct {
	literals *literals
	patterns []gatedPattern
}

var compiled = sync.OnceValues(func() (*list, error) {
	var entries []struct {
		Pattern string `json:"pattern"`
	}
	if err := json.Unmarshal(listJSON, &entries); err != nil {
		return nil, fmt.Errorf("bots: %w", err)
	}
	c := &list{}
	var literals []string
	for _, e := range entries {
		tree, err := syntax.Parse(e.Pattern, syntax.Perl)
		if err != nil {
			return nil, fmt.Errorf("bots: pattern %q: %w", e.Pattern, err)
		}
		if lits := plainLiterals(tree); lits != nil {
			literals = append(literals, lits...)
			continue
		}
		re, err := regexp.Compile(e.Pattern)
		if err != nil {
			return nil, fmt.Errorf("bots: pattern %q: %w", e.Pattern, err)
		}
		c.patterns = append(c.patterns, gatedPattern{needs: requiredLiteral(tree), re: re})
	}
	c.literals = newLiterals(literals)
	return c, nil
})

// IsBot reports whether the User-Agent is a known bot, or one that no
// browser sends (see notBrowser). An empty one counts as a bot: every
// browser sends one.
func (d *Detector) IsBot(userAgent string) bool {
	d.mu.RLock()
	bot, ok := d.seen[userAgent]
	d.mu.RUnlock()
	if ok {
		return bot
	}
	bot = d.match(userAgent)
	if len(userAgent) <= maxSeenAgent {
		d.mu.Lock()
		if len(d.seen) >= maxSeen {
			clear(d.seen)
		}
		d.seen[userAgent] = bot
		d.mu.Unlock()
	}
	return bot
}

func (d *Detector) match(userAgent string) bool {
	if notBrowser(userAgent) || d.literals.in(userAgent) {
		return true
	}
	for _, p := range d.patterns {
		if (p.needs == "" || strings.Contains(userAgent, p.needs)) && p.re.MatchString(userAgent) {
			return true
		}
	}
	return false
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of the pattern contains, or "" when there is none to be sure of.
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return string(re.Rune)
		}
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// plainLiterals returns the strings a pattern is made of when it is a plain
// string or an alternation of plain strings ("Chirp|gotosocial"), else nil.
func plainLiterals(re *syntax.Regexp) []string {
	lit := func(r *syntax.Regexp) bool { return r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 }
	switch {
	case lit(re):
		return []string{string(re.Rune)}
	case re.Op == syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			if !lit(sub) {
				return nil
			}
			out = append(out, string(sub.Rune))
		}
		return out
	}
	return nil
}

// The rule for agents no browser sends (docs/security.md, Count inflation,
// the bot filter): the list names crawlers by their own names, and HTTP
// libraries and tools that send a bare or a made-up agent slipped through
// an outside probe (Java/17, PostmanRuntime/7.36, Mozilla/5.0, x).
const minBrowserAgent = 40 // "Mozilla/5.0 (…) Gecko/20100101 Firefox/133.0" is 70 and the shortest kind

// engines are the rendering-engine tokens every browser agent of the last
// fifteen years carries: Blink and WebKit (Chrome, Edge, Safari, Opera,
// Samsung, in-app browsers) say AppleWebKit/, Firefox says Gecko/,
// Internet Explorer Trident/, Opera Mini Presto/.
var engines = []string{"AppleWebKit/", "Gecko/", "Trident/", "Presto/"}

// tools are names of HTTP clients and automation, in lower case, that are
// never part of a browser's agent. HeadlessChrome is here: a shopper does
// not browse headless (docs/security.md says so).
var tools = []string{
	"curl/", "wget/", "java/", "postmanruntime/", "insomnia/", "python-requests/", "python-urllib/",
	"python-httpx/", "aiohttp/", "go-http-client/", "okhttp/", "axios/", "node-fetch/", "undici",
	"libwww-perl/", "apache-httpclient/", "httpie/", "guzzlehttp/", "headlesschrome", "phantomjs",
}

// notBrowser reports whether no browser sends the agent: empty, too short,
// without an engine token, or naming a tool.
func notBrowser(userAgent string) bool {
	if len(userAgent) < minBrowserAgent {
		return true
	}
	engine := false
	for _, e := range engines {
		if strings.Contains(userAgent, e) {
			engine = true
			break
		}
	}
	if !engine {
		return true
	}
	lower := strings.ToLower(userAgent)
	for _, t := range tools {
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}
