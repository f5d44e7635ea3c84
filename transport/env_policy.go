package transport

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// EnvInheritance chooses which of the parent's environment variables a
// stdio server inherits; StdioConfig.Env is set on top of them.
type EnvInheritance string

// The environment policies.
const (
	// EnvInheritAll passes the whole environment, as most MCP hosts do.
	EnvInheritAll EnvInheritance = ""
	// EnvInheritSafe passes only the short list of variables a program
	// needs to run (the official TypeScript SDK's default): credentials
	// in the parent's environment do not reach the server unless Env
	// names them.
	EnvInheritSafe EnvInheritance = "safe"
	// EnvInheritNone passes nothing but Env.
	EnvInheritNone EnvInheritance = "none"
)

// errUnknownEnvInheritance matches every *envInheritanceError.
var errUnknownEnvInheritance = errors.New("unknown environment inheritance policy")

// envInheritanceError refuses to start a stdio server whose
// StdioConfig.InheritEnv is none of the policies above: a misspelt "safe"
// must not quietly pass the whole environment. The server's ErrStart error
// carries it.
type envInheritanceError struct{ Policy EnvInheritance }

func (e *envInheritanceError) Error() string {
	return fmt.Sprintf("unknown environment inheritance %q (want %q, %q or %q)", string(e.Policy),
		string(EnvInheritAll), string(EnvInheritSafe), string(EnvInheritNone))
}

// Is makes errors.Is(err, errUnknownEnvInheritance) true.
func (e *envInheritanceError) Is(target error) bool { return target == errUnknownEnvInheritance }

// The variables EnvInheritSafe passes: the official TypeScript SDK's
// default list (DEFAULT_INHERITED_ENV_VARS in its stdio client), so that a
// server behaves as it does under the SDK's clients.
var (
	safeEnvUnix    = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	safeEnvWindows = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
		"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
)

// serverEnv builds a stdio server's environment from the parent's
// (environ, as os.Environ gives it) under policy, with env set on top.
// windows selects the Windows list, whose names match whatever their case
// (Windows' own names are case-insensitive: "Path" is PATH).
func serverEnv(policy EnvInheritance, environ []string, env map[string]string, windows bool) ([]string, error) {
	var out []string
	switch policy {
	case EnvInheritAll:
		out = slices.Clone(environ)
	case EnvInheritSafe:
		names := safeEnvUnix
		if windows {
			names = safeEnvWindows
		}
		for _, kv := range environ {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" || !safeName(names, k, windows) {
				continue
			}
			// A value starting with "()" is a shell function exported
			// by bash (Shellshock's vector); the SDK skips it too.
			if strings.HasPrefix(v, "()") {
				continue
			}
			out = append(out, kv)
		}
	case EnvInheritNone:
	default:
		return nil, &envInheritanceError{Policy: policy}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out, nil
}

func safeName(names []string, k string, windows bool) bool {
	for _, n := range names {
		if n == k || windows && strings.EqualFold(n, k) {
			return true
		}
	}
	return false
}
