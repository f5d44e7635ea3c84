package main

import (
	"net"
	"net/http"
	"time"
)

// tunedHTTPClient is the http.Client the hand-written client uses, and the
// one the peer libraries are given too: keep-alive with at least as many
// idle connections per host as calls in flight (Go's default keeps 2, so
// that at 16 or 256 in flight most requests would open a new TCP
// connection), no compression. mcpactor uses the client its runtime makes
// (transport.NewHTTPClient: 512 idle connections per host).
func tunedHTTPClient(n int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0, // no limit
		MaxIdleConnsPerHost: n + 16,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}
