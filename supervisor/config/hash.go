package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// canonicalHash returns the hex SHA-256 of a JSON document with its object
// keys sorted and insignificant space removed, so that the same
// configuration written differently hashes alike: Server.Hash, which the
// tool-list cache keys a server's list by. Numbers are kept as written.
// Pass the server's configuration before variables and secrets are
// resolved.
func canonicalHash(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("configuration hash: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("configuration hash: data after the JSON value")
	}
	canonical, err := json.Marshal(v) // encoding/json writes map keys sorted
	if err != nil {
		return "", fmt.Errorf("configuration hash: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}
