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
// configuration written differently hashes alike: Entry.Hash, which the
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

// Hash is the hash of an entry given in code as the document a file would
// hold: doc is made of maps, slices, strings and integers, with the field
// names of the file format ("command", "restart": {"maxRestarts": ...}),
// so that what is hashed reads as an entry would.
func Hash(doc map[string]any) (string, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("configuration hash: %w", err)
	}
	return marshaledHash(raw)
}

// marshaledHash is canonicalHash of a document json.Marshal wrote from
// maps, slices, strings and integers (Hash's): such a document is
// canonical already (object keys sorted, no space, integers as written,
// strings escaped as Marshal escapes them), so its hash is that of its
// bytes, without decoding it and encoding it again. Hash runs for
// every server given in code, and with a whole environment in Env those
// two passes were most of its time. Only a string that is not valid UTF-8
// comes out otherwise: Marshal writes its bad bytes as \ufffd escapes, and
// the U+FFFD that decoding makes of them as the character itself; a
// document with such an escape is hashed the long way.
func marshaledHash(raw []byte) (string, error) {
	if bytes.Contains(raw, []byte(`\ufffd`)) {
		return canonicalHash(raw)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}
