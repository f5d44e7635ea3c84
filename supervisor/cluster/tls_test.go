package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// selfSigned makes a certificate for 127.0.0.1 that is its own CA.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "member"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
}

// TestRemoteMutualTLS: with ServerTLS requiring client certificates, a
// peer with the cluster's certificate and secret gets through the TLS
// handshake and the guard (which still refuses the unimplemented method
// it calls); a plaintext peer and a peer without a certificate do not.
func TestRemoteMutualTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	cfg, addr := startTestRemote(t, Config{
		Etcd: EtcdConfig{Endpoints: []string{"unused"}}, Servers: testConfigServers(), Secret: "s3cret",
		ServerTLS: &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13},
		ClientTLS: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS13},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call := func(opts ...grpc.DialOption) error {
		conn, err := grpc.NewClient(addr, opts...)
		if err != nil {
			return err
		}
		defer conn.Close()
		_, err = remote.NewRemotingClient(conn).ListProcesses(ctx, &remote.ListProcessesRequest{})
		return err
	}
	if err := call(dialOptions(cfg)...); status.Code(err) != codes.Unimplemented {
		t.Errorf("member with certificate: %v, want Unimplemented from the guard", err)
	}
	if err := call(grpc.WithTransportCredentials(insecure.NewCredentials())); status.Code(err) != codes.Unavailable {
		t.Errorf("plaintext peer: %v, want Unavailable", err)
	}
	noCert := credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13})
	if err := call(grpc.WithTransportCredentials(noCert)); status.Code(err) != codes.Unavailable {
		t.Errorf("peer without a client certificate: %v, want Unavailable", err)
	}
}
