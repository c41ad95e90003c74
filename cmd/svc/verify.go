package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc/internal/httpsig"
	"github.com/svc-project/svc/internal/signing"
)

// notVerified is the error of an answer that does not verify: main prints
// it and exits 1, where a usage error exits 2.
type notVerified struct{ err error }

func (e notVerified) Error() string { return "not verified: " + e.err.Error() }
func (e notVerified) Unwrap() error { return e.err }

// verify checks a signed answer of svc: fetched from --url, or read from a
// saved one (--answer, as curl -i writes it) with the URL it answered.
func verify(ctx context.Context, env environment, args []string) error {
	fs := env.flagSet("verify")
	rawURL := fs.String("url", "", "the request's URL, as the client sent it (required)")
	method := fs.String("method", "", "the request's method (default GET, or POST with --data or --data-file)")
	data := fs.String("data", "", "the request's JSON body, sent with Content-Type: application/json")
	dataFile := fs.String("data-file", "", "a file holding the request's body")
	answerFile := fs.String("answer", "", "a saved answer (status line, fields, blank line, body, as curl -i writes it): check it instead of sending the request")
	requestFile := fs.String("request", "", "a saved request (request line and fields; an https URL is assumed unless its line has the whole URL): instead of --url and --method, with --answer")
	maxAge := fs.Duration("max-age", 0, "refuse an answer signed longer ago than this (a replay); 0: any age")
	keysFrom := fs.String("keys", "", "the JWK Set: a URL or a file (default: /.well-known/svc-keys.json at --url's origin)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *requestFile != "" {
		if *rawURL != "" || *method != "" || *answerFile == "" {
			return usageError{"--request takes the place of --url and --method, and needs --answer"}
		}
		m, target, err := parseRequest(*requestFile)
		if err != nil {
			return usageError{fmt.Sprintf("--request %s: %v", *requestFile, err)}
		}
		*method, *rawURL = m, target
	}
	u, err := url.Parse(*rawURL)
	if *rawURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{"--url must be an absolute http or https URL"}
	}
	if *data != "" && *dataFile != "" {
		return usageError{"give --data or --data-file, not both"}
	}
	body := []byte(*data)
	if *dataFile != "" {
		if body, err = os.ReadFile(*dataFile); err != nil {
			return usageError{fmt.Sprintf("--data-file: %v", err)}
		}
	}
	if *method == "" {
		*method = http.MethodGet
		if *data != "" || *dataFile != "" {
			*method = http.MethodPost
		}
	}
	*method = strings.ToUpper(*method)

	client := &http.Client{Timeout: 30 * time.Second}
	var a *signing.Answer
	if *answerFile != "" {
		raw, err := os.ReadFile(*answerFile)
		if err != nil {
			return usageError{fmt.Sprintf("--answer: %v", err)}
		}
		if a, err = parseAnswer(raw); err != nil {
			return usageError{fmt.Sprintf("--answer %s: %v", *answerFile, err)}
		}
	} else if a, err = fetchAnswer(ctx, client, *method, u, body); err != nil {
		return notVerified{err}
	} else if len(body) > 0 {
		a.RequestHeader = http.Header{"Content-Digest": {httpsig.Digest(body)}}
	}
	a.Method, a.TargetURI = *method, u

	keysURL := *keysFrom
	if keysURL == "" {
		keysURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/svc-keys.json"}).String()
	}
	keys, err := loadKeys(ctx, client, keysURL)
	if err != nil {
		return notVerified{err}
	}
	v, err := signing.VerifyKeys(a, keys)
	if err != nil {
		if a.Status/100 != 2 && a.Header.Get("Signature") == "" {
			err = fmt.Errorf("the answer is a %d, and only 2xx answers are signed: %w", a.Status, err)
		}
		return notVerified{err}
	}
	if age := time.Since(v.Params.Created); *maxAge > 0 && age > *maxAge {
		return notVerified{fmt.Errorf("the answer was signed %s ago, more than --max-age %s", age.Round(time.Second), *maxAge)}
	}
	var covered []string
	for _, c := range v.Params.Components {
		covered = append(covered, c.String())
	}
	fmt.Fprintf(env.stdout, "verified: %d answer of %s %s\nsigned by key %s at %s (%s ago)\ncovering %s and the body's Content-Digest\n",
		a.Status, a.Method, a.TargetURI, v.Params.KeyID, v.Params.Created.Format(time.RFC3339),
		time.Since(v.Params.Created).Round(time.Second), strings.Join(covered, " "))
	// What the signature vouches for: the figures of the body it covers.
	if lines := bodyFigures(a.Body, maxFigures); len(lines) > 0 {
		fmt.Fprintf(env.stdout, "the signed body says:\n  %s\n", strings.Join(lines, "\n  "))
	}
	return nil
}

// maxFigures bounds the lines verify prints of a body: an enrichment of
// 50 results has thousands.
const maxFigures = 60

// bodyFigures lists a JSON body's values as "path: value" lines, in the body's
// order, such as "views_last_60_min: 1" and "results[0].match.method:
// "url"", at most max of them and then how many more there are. Strings
// are quoted, so that a title cannot write control sequences to a
// terminal. A body that is not JSON has none.
func bodyFigures(body []byte, max int) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var lines []string
	more := 0
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		line := ""
		switch t := tok.(type) {
		case json.Delim: // '{' or '[': Token checks that they nest
			for i := 0; dec.More(); i++ {
				child := fmt.Sprintf("%s[%d]", path, i)
				if t == '{' {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					child = strings.TrimPrefix(path+"."+k.(string), ".")
				}
				if err := walk(child); err != nil {
					return err
				}
			}
			_, err := dec.Token() // the closing delimiter
			return err
		case string:
			line = strconv.Quote(t)
		case json.Number:
			line = t.String()
		case bool:
			line = strconv.FormatBool(t)
		case nil:
			line = "null"
		}
		if len(lines) < max {
			lines = append(lines, path+": "+line)
		} else {
			more++
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more values", more))
	}
	return lines
}

func fetchAnswer(ctx context.Context, client *http.Client, method string, u *url.URL, body []byte) (*signing.Answer, error) {
	var rd io.Reader
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	// The proof and the feed are signed only when asked (docs/verification.md).
	req.Header.Set("Accept-Signature", signing.AcceptSignature)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
		// The answer is then bound to this body (docs/verification.md).
		req.Header.Set("Content-Digest", httpsig.Digest(body))
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	return &signing.Answer{Status: res.StatusCode, Header: res.Header, Body: b}, nil
}

// parseAnswer reads a saved answer. Its framing fields are ignored:
// curl -i writes the body already decoded, whatever Transfer-Encoding said.
func parseAnswer(raw []byte) (*signing.Answer, error) {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	line, err := r.ReadLine()
	if err != nil {
		return nil, fmt.Errorf("no status line")
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil || status < 100 || status > 999 {
		return nil, fmt.Errorf("the first line %q is not a status line", line)
	}
	h, err := r.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("the fields: %w", err)
	}
	body, err := io.ReadAll(r.R)
	if err != nil {
		return nil, err
	}
	return &signing.Answer{Status: status, Header: http.Header(h), Body: body}, nil
}

func loadKeys(ctx context.Context, client *http.Client, from string) (map[string]signing.PublishedKey, error) {
	var b []byte
	if u, err := url.Parse(from); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
		if err != nil {
			return nil, err
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetch the keys: %w", err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("fetch the keys: %s answered %d", from, res.StatusCode)
		}
		if b, err = io.ReadAll(res.Body); err != nil {
			return nil, fmt.Errorf("fetch the keys: %w", err)
		}
	} else if b, err = os.ReadFile(from); err != nil {
		return nil, fmt.Errorf("read the keys: %w", err)
	}
	keys, err := signing.ParseKeys(b)
	if err != nil {
		return nil, fmt.Errorf("the keys at %s: %w", from, err)
	}
	if len(keys) == 0 {
		return nil, errors.New("the key set is empty")
	}
	return keys, nil
}

// parseRequest reads a saved request's method and URL: the request line's
// target with its Host field, or the line's absolute URL.
func parseRequest(path string) (method, target string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	req, err := http.ReadRequest(bufio.NewReader(f))
	if err != nil {
		return "", "", err
	}
	if req.URL.IsAbs() {
		return req.Method, req.URL.String(), nil
	}
	if req.Host == "" {
		return "", "", errors.New("no Host field")
	}
	return req.Method, "https://" + req.Host + req.URL.RequestURI(), nil
}
