package config

import (
	"log/slog"
	"strconv"
)

// An Auth holds a client secret: it is printed (%v, %+v, %#v) and logged
// (slog) with its type, client id and issuer only, as oauth.Config is, so
// that a server shown to a person for approval shows no credential.

// String describes the auth object without its secret.
func (a Auth) String() string {
	s := "Auth{" + a.Type
	if a.ClientID != "" {
		s += " client " + strconv.Quote(a.ClientID)
	}
	if a.Issuer != "" {
		s += " issuer " + a.Issuer
	}
	if a.ClientSecret != "" || a.PrivateKeyFile != "" {
		s += " [credentials redacted]"
	}
	return s + "}"
}

// GoString is String, for %#v.
func (a Auth) GoString() string { return a.String() }

// LogValue is String, for slog.
func (a Auth) LogValue() slog.Value { return slog.StringValue(a.String()) }
