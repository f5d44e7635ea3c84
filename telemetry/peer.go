package telemetry

import (
	"net/url"
	"strconv"
)

// StdioPeer returns the Peer of a stdio server: network.transport "pipe".
// Set ProtocolVersion once the handshake has settled it.
func StdioPeer(server string) Peer {
	return Peer{Server: server, NetworkTransport: TransportPipe}
}

// HTTPPeer returns the Peer of a Streamable HTTP server at endpoint:
// network.transport "tcp", network.protocol.name "http", server.address and
// server.port from the URL (the scheme's default port when it has none).
// Set NetworkProtocolVersion from the responses (HTTPProtocolVersion; an
// Op learns it with Op.SetNetworkProtocolVersion), and ProtocolVersion and
// SessionID once known. An endpoint that does not parse
// gives a Peer without address.
func HTTPPeer(server, endpoint string) Peer {
	p := Peer{Server: server, NetworkTransport: TransportTCP, NetworkProtocolName: ProtocolHTTP}
	u, err := url.Parse(endpoint)
	if err != nil {
		return p
	}
	p.ServerAddress = u.Hostname()
	if port := u.Port(); port != "" {
		p.ServerPort, _ = strconv.Atoi(port)
	} else {
		switch u.Scheme {
		case "https":
			p.ServerPort = 443
		case "http":
			p.ServerPort = 80
		}
	}
	return p
}

// HTTPProtocolVersion is network.protocol.version for an HTTP response of
// version major.minor (http.Response.ProtoMajor, ProtoMinor): "1.0",
// "1.1", and "2" or "3" (the conventions' examples write HTTP/2 as "2",
// https://github.com/open-telemetry/semantic-conventions/blob/v1.43.0/docs/registry/attributes/network.md).
// "" when major is 0 (not known).
func HTTPProtocolVersion(major, minor int) string {
	switch {
	case major <= 0:
		return ""
	case major == 1:
		return "1." + strconv.Itoa(minor)
	case minor == 0:
		return strconv.Itoa(major)
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor)
}
