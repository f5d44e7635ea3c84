package actors

// InjectPanic is injectPanic for the package's external tests: fault
// injection, not part of the package's API.
var InjectPanic = injectPanic
