package redact

import (
	"errors"
	"reflect"
)

// Error returns err with the server's credentials masked in its text and
// in the exported fields of every error of its chain, so that neither
// err.Error() nor what errors.As finds in it (an *RPCError's Message and
// Data, an HTTP error's Body) shows one. The errors of the chain keep
// their types, so errors.Is and errors.As see what they saw: a struct
// error is copied with its string, byte-slice and error fields masked. An
// error whose text would still show a credential (one kept in unexported
// fields, such as fmt.Errorf's) is replaced by one with the masked text,
// which errors.Is still matches with what the original matched and which
// unwraps to the rest of the chain, masked.
//
// err itself is returned when nothing in it needed masking, so that
// comparisons with sentinel errors hold.
func (m *Masker) Error(err error) error {
	if m == nil || err == nil {
		return err
	}
	out, _ := m.maskError(err, 0)
	return out
}

// maxErrorDepth bounds the walk of a chain (a cycle, which no sane error
// has, ends there).
const maxErrorDepth = 32

// maskError returns err masked, and whether it changed.
func (m *Masker) maskError(err error, depth int) (error, bool) {
	if err == nil || depth > maxErrorDepth {
		return err, false
	}
	out, changed := err, false
	if v := reflect.ValueOf(err); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		cp := reflect.New(v.Elem().Type())
		cp.Elem().Set(v.Elem())
		if m.maskFields(cp.Elem(), depth) {
			if e, ok := cp.Interface().(error); ok {
				out, changed = e, true
			}
		}
	}
	// What the copy could not reach: a credential in unexported fields
	// (shown by Error), or in an error it wraps through them.
	text := out.Error()
	masked := m.Text(text)
	inner, innerChanged := m.maskUnwrapped(out, depth)
	if masked == text && !innerChanged {
		return out, changed
	}
	return &maskedError{text: masked, orig: err, inner: inner}, true
}

// maskUnwrapped returns what err unwraps to, masked, and whether the
// masked errors differ from what err unwraps to (a copy made by
// maskFields already unwraps to the masked ones).
func (m *Masker) maskUnwrapped(err error, depth int) ([]error, bool) {
	var list []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			list = []error{e}
		}
	case interface{ Unwrap() []error }:
		list = u.Unwrap()
	}
	if len(list) == 0 {
		return nil, false
	}
	out := make([]error, len(list))
	changed := false
	for i, e := range list {
		var c bool
		out[i], c = m.maskError(e, depth+1)
		changed = changed || c
	}
	return out, changed
}

// maskFields masks, in place, the exported fields of the struct v (a
// copy), and reports whether any changed.
func (m *Masker) maskFields(v reflect.Value, depth int) bool {
	changed := false
	t := v.Type()
	for i := 0; i < v.NumField(); i++ {
		if !t.Field(i).IsExported() {
			continue
		}
		if nv, ok := m.maskValue(v.Field(i), depth); ok {
			v.Field(i).Set(nv)
			changed = true
		}
	}
	return changed
}

var (
	errorType = reflect.TypeFor[error]()
	bytesType = reflect.TypeFor[[]byte]()
)

// maskValue returns v masked when it differs: strings, byte slices (a
// json.RawMessage), errors, and the slices, pointers to structs and
// structs holding them.
func (m *Masker) maskValue(v reflect.Value, depth int) (reflect.Value, bool) {
	switch {
	case v.Kind() == reflect.String:
		if s := m.Text(v.String()); s != v.String() {
			return reflect.ValueOf(s).Convert(v.Type()), true
		}
	case v.Type().ConvertibleTo(bytesType) && v.Kind() == reflect.Slice:
		if s := m.Text(string(v.Bytes())); s != string(v.Bytes()) {
			return reflect.ValueOf([]byte(s)).Convert(v.Type()), true
		}
	case v.Type() == errorType:
		if v.IsNil() {
			return v, false
		}
		if e, ok := m.maskError(v.Interface().(error), depth+1); ok {
			nv := reflect.New(errorType).Elem()
			nv.Set(reflect.ValueOf(e))
			return nv, true
		}
	case v.Kind() == reflect.Slice:
		if v.IsNil() {
			return v, false
		}
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			if nv, ok := m.maskValue(v.Index(i), depth); ok {
				if !out.IsValid() {
					out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
					reflect.Copy(out, v)
				}
				out.Index(i).Set(nv)
			}
		}
		if out.IsValid() {
			return out, true
		}
	case v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct:
		if v.IsNil() || depth > maxErrorDepth {
			return v, false
		}
		cp := reflect.New(v.Type().Elem())
		cp.Elem().Set(v.Elem())
		if m.maskFields(cp.Elem(), depth+1) {
			return cp, true
		}
	case v.Kind() == reflect.Struct:
		cp := reflect.New(v.Type()).Elem()
		cp.Set(v)
		if m.maskFields(cp, depth+1) {
			return cp, true
		}
	}
	return v, false
}

// maskedError stands for an error whose credentials could not be masked
// in place: its text masked, matched by errors.Is as the original was,
// unwrapping to the original's chain masked.
type maskedError struct {
	text  string
	orig  error
	inner []error
}

func (e *maskedError) Error() string { return e.text }

// Is reports what errors.Is reports for the original: a sentinel it
// matched, it still matches. It tells nothing more.
func (e *maskedError) Is(target error) bool { return errors.Is(e.orig, target) }

// Unwrap returns what the original wrapped, masked.
func (e *maskedError) Unwrap() []error { return e.inner }
