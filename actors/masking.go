package actors

import (
	"github.com/mcpactor/mcpactor/internal/redact"
)

// Everything a client produces for someone other than its server (the
// errors its methods return and its supervisor hears, its log records,
// its spans, the stderr lines it hands on) leaves through this actor, and
// is masked here with the server's own Masker: the values of its
// configured env and headers and the secrets of its URL, wherever they
// show, in the runtime's words or in the server's (a JSON-RPC error that
// quotes a header, stderr that prints the environment). What a server
// returns as a result (tool content, resources, prompts) is the caller's
// data and passes as it came (docs/configuration.md, "What is kept out of
// logs").

// maskerOf builds the Masker of the server name configured by cfg.
func maskerOf(name string, cfg *Spec) *redact.Masker {
	return redact.NewMasker(redact.Config{Name: name, URL: cfg.HTTP.URL, Headers: cfg.HTTP.Headers,
		Env: cfg.Stdio.Env, Args: cfg.Stdio.Args})
}

// masked returns err with the server's credentials masked. It is a
// function of its own, never inlined, so that the hot path's frames do
// not hold what masking needs: it runs only for a failed request.
//
//go:noinline
func (c *Client) masked(err error) error {
	if err == nil {
		return nil
	}
	return c.mask.Error(err)
}
