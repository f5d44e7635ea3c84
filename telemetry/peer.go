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
// Set NetworkProtocolVersion from the responses ("1.1", "2"), and
// ProtocolVersion and SessionID once known. An endpoint that does not parse
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
