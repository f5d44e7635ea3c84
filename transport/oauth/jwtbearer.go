package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Workload identity federation (SEP-1933,
// https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933):
// a workload (a Kubernetes pod, a CI job, a cloud function) holds a JWT
// its platform issued, naming the workload and meant for the
// authorization server. The client presents it as a JWT bearer grant
// (RFC 7523 section 2.1) and gets a token, with no user and no secret.
// The platform rotates the JWT: it is read again before it expires, and
// the token is replaced before it expires (Client.renew), each read from
// its exp.

// AssertionSource is where GrantJWTBearer's assertions come from: the
// first of File, Command and Func that is set. What it yields is a
// secret: it goes into the token request alone, never into an error or
// a log line.
type AssertionSource struct {
	// File is read each time an assertion is needed and none is held
	// (a Kubernetes projected service account token, a file a sidecar
	// rewrites).
	File string
	// Command is run, without a shell, and its standard output is the
	// assertion (a cloud CLI printing an identity token).
	Command []string
	// Func returns the assertion of identity.
	Func func(ctx context.Context, identity string) (string, error)
}

// heldAssertion is an assertion and when it expires (zero: unknown, so
// it is not kept).
type heldAssertion struct {
	value string
	exp   time.Time
}

// jwtBearer is the JWT bearer grant with the workload's assertion, the
// resource (RFC 8707) and the scope. An authorization server's refusal
// (invalid_grant, invalid_scope, unauthorized_client) is returned as it
// came: another grant would not change it.
func (c *Client) jwtBearer(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, scopes []string) (*Token, error) {
	a, err := c.assertion(ctx, key.Identity)
	if err != nil {
		return nil, err
	}
	if err := checkAudience("the assertion from "+c.cfg.Assertion.name(), a, d); err != nil {
		return nil, err
	}
	return c.grantWithoutUser(ctx, st, d, ci, key, scopes, url.Values{"grant_type": {grantJWTBearer}, "assertion": {a}})
}

// assertion returns the assertion of identity: the one held while it is
// good for more than RefreshBefore, else a new one from the source (one
// read for every request asking at the same time). One already expired
// is refused without being sent.
func (c *Client) assertion(ctx context.Context, identity string) (string, error) {
	src := c.cfg.Assertion
	if src == nil || src.File == "" && len(src.Command) == 0 && src.Func == nil {
		return "", errors.New("oauth: the JWT bearer grant needs Config.Assertion")
	}
	if v, ok := c.sh.assertions.Load(identity); ok {
		if h := v.(heldAssertion); time.Until(h.exp) > c.cfg.RefreshBefore {
			return h.value, nil
		}
	}
	v, err := c.do(ctx, "assertion\x00"+identity, func(ctx context.Context) (any, error) {
		a, err := contain(c.sh, "Config.Assertion."+src.kind(), func() (string, error) { return src.read(ctx, identity) })
		if err != nil {
			return nil, err
		}
		exp := unverifiedExpiry(a)
		if !exp.IsZero() && !time.Now().Before(exp) {
			return nil, fmt.Errorf("oauth: the assertion from %s expired at %s", src.name(), exp.Format(time.RFC3339))
		}
		if exp.IsZero() {
			c.sh.assertions.Delete(identity)
		} else {
			c.sh.assertions.Store(identity, heldAssertion{value: a, exp: exp})
		}
		return a, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func (s *AssertionSource) read(ctx context.Context, identity string) (string, error) {
	var a string
	switch {
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			return "", fmt.Errorf("oauth: assertion: %w", err)
		}
		a = string(b)
	case len(s.Command) > 0:
		cmd := exec.CommandContext(ctx, s.Command[0], s.Command[1:]...)
		var out bytes.Buffer
		cmd.Stdout = &out
		// The command's stderr is left out of the error: it may echo
		// what it printed.
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("oauth: assertion command %q: %w", s.Command[0], err)
		}
		a = out.String()
	default:
		var err error
		if a, err = s.Func(ctx, identity); err != nil {
			return "", err
		}
	}
	a = strings.TrimSpace(a)
	if a == "" {
		return "", fmt.Errorf("oauth: the assertion from %s is empty", s.name())
	}
	return a, nil
}

// kind names the field of the source in use.
func (s *AssertionSource) kind() string {
	switch {
	case s.File != "":
		return "File"
	case len(s.Command) > 0:
		return "Command"
	}
	return "Func"
}

// name says where assertions come from, for errors.
func (s *AssertionSource) name() string {
	switch {
	case s.File != "":
		return s.File
	case len(s.Command) > 0:
		return "the command " + s.Command[0]
	}
	return "Config.Assertion.Func"
}

// String hides nothing secret (the source holds none), and says where
// assertions come from.
func (s *AssertionSource) String() string { return "oauth.AssertionSource{" + s.name() + "}" }
