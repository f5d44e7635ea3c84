package transport

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
