package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
)

// errNotOurAns is an event stream that ended without the answer wanted.
var errNotOurAns = errors.New("no answer with the request's id")

// mediaType is a Content-Type's media type, without parameters, in lower
// case.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// readEvents reads an event stream, handing each event's data to f until
// f reports that it was the one wanted.
func readEvents(r io.Reader, f func(data []byte) bool) error {
	br := bufio.NewReader(r)
	var data []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A longer line: gather it whole.
			more, err2 := br.ReadBytes('\n')
			line, err = append(slices.Clone(line), more...), err2
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if len(data) > 0 && f(data) {
				return nil
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[5:], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
		if err != nil {
			if len(data) > 0 && f(data) {
				return nil
			}
			if err == io.EOF {
				return errNotOurAns
			}
			return err
		}
	}
}
