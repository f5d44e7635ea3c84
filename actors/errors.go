package actors

import "errors"

// Sentinels of the typed errors of this package, for errors.Is: each typed
// error matches its own, so that a caller can tell the kinds apart without
// naming the types (the root package re-exports both).
var (
	// ErrInvalidResult matches every *InvalidResultError.
	ErrInvalidResult = errors.New("invalid result")
	// ErrPagination matches every *PaginationError.
	ErrPagination = errors.New("listing cut short")
	// ErrConfig matches every *ConfigError.
	ErrConfig = errors.New("invalid server configuration")
	// ErrIncompleteClose matches every *IncompleteCloseError.
	ErrIncompleteClose = errors.New("close did not finish")
	// ErrReplaced matches every *ReplacedError.
	ErrReplaced = errors.New("connection replaced")
)

// Is makes errors.Is(err, ErrInvalidResult) true.
func (e *InvalidResultError) Is(target error) bool { return target == ErrInvalidResult }

// Is makes errors.Is(err, ErrPagination) true.
func (e *PaginationError) Is(target error) bool { return target == ErrPagination }

// Is makes errors.Is(err, ErrConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Is makes errors.Is(err, ErrIncompleteClose) true.
func (e *IncompleteCloseError) Is(target error) bool { return target == ErrIncompleteClose }

// Is makes errors.Is(err, ErrReplaced) true.
func (e *ReplacedError) Is(target error) bool { return target == ErrReplaced }
