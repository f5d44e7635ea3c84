package transport

import (
	"bytes"
	"html"
	"strings"
	"unicode/utf8"
)

// excerptBytes bounds the part of an HTTP body an error message shows.
const excerptBytes = 200

// excerpt makes the body of an HTTP answer fit for a one-line error
// message: valid UTF-8; the text of an HTML page rather than its markup
// (a proxy's or a framework's 404 page is a dozen lines of tags around one
// sentence); every run of blank space, line breaks included, one space;
// at most excerptBytes, cut at a character boundary with "..." added.
func excerpt(body []byte) string {
	body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	text := string(body)
	if looksLikeHTML(body) {
		text = htmlText(text)
	}
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= excerptBytes {
		return text
	}
	cut := excerptBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "..."
}

// looksLikeHTML reports whether body starts as an HTML page or fragment.
func looksLikeHTML(body []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	if !bytes.HasPrefix(head, []byte("<")) {
		return false
	}
	for _, mark := range []string{"<!doctype html", "<html", "<head", "<body", "<title", "<h1", "<p>", "<div", "<pre"} {
		if bytes.Contains(head, []byte(mark)) {
			return true
		}
	}
	return false
}

// htmlText is the text of an HTML document: tags dropped (with the
// contents of <script> and <style>, which are not text), entities decoded.
func htmlText(s string) string {
	var b strings.Builder
	for {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:lt])
		b.WriteByte(' ')
		s = s[lt:]
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			break // an unfinished tag: the rest is markup
		}
		tag := strings.ToLower(s[:gt+1])
		s = s[gt+1:]
		for _, skip := range []string{"script", "style"} {
			if strings.HasPrefix(tag, "<"+skip) {
				if end := strings.Index(strings.ToLower(s), "</"+skip); end >= 0 {
					s = s[end:]
				} else {
					s = ""
				}
			}
		}
	}
	return html.UnescapeString(b.String())
}
