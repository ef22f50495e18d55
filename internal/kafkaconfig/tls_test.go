package kafkaconfig_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/kafkaconfig"
)

// testPKI is a CA with a server and a client certificate, written as PEM
// files into dir.
type testPKI struct {
	dir    string
	server tls.Certificate
	pool   *x509.CertPool // the CA, for the server to check client certificates
}

func issue(t *testing.T, tmpl *x509.Certificate, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// newPKI makes a CA, a server certificate for the given IPs and DNS
// names, and a client certificate for "reader"; files: ca.pem,
// client.pem, client.key, other-ca.pem (an unrelated CA).
func newPKI(t *testing.T, ips []net.IP, names []string) *testPKI {
	t.Helper()
	dir := t.TempDir()
	now := time.Now()
	ca, caKey := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "handshake CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil, nil)
	other, _ := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "other CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil, nil)
	srv, srvKey := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: ips, DNSNames: names,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}, ca, caKey)
	cli, cliKey := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(4), Subject: pkix.Name{CommonName: "reader"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}, ca, caKey)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	writePEM(t, filepath.Join(dir, "other-ca.pem"), "CERTIFICATE", other.Raw)
	writePEM(t, filepath.Join(dir, "client.pem"), "CERTIFICATE", cli.Raw)
	keyDER, err := x509.MarshalPKCS8PrivateKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "client.key"), "PRIVATE KEY", keyDER)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &testPKI{dir: dir, pool: pool,
		server: tls.Certificate{Certificate: [][]byte{srv.Raw, ca.Raw}, PrivateKey: srvKey, Leaf: srv}}
}

// serve accepts one TLS connection, completes the handshake and reports
// the client certificate's common name ("" for none) or the error.
func serve(t *testing.T, pki *testPKI, clientAuth tls.ClientAuthType) (string, <-chan string) {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{pki.server}, ClientAuth: clientAuth, ClientCAs: pki.pool,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	result := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			result <- "accept: " + err.Error()
			return
		}
		defer conn.Close()
		tc := conn.(*tls.Conn)
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			result <- "handshake: " + err.Error()
			return
		}
		peers := tc.ConnectionState().PeerCertificates
		if len(peers) == 0 {
			result <- ""
		} else {
			result <- peers[0].Subject.CommonName
		}
		_, _ = tc.Write([]byte("ok"))
	}()
	return ln.Addr().String(), result
}

func TestHandshake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		names      []string // the server certificate's DNS names; nil: IP 127.0.0.1
		props      string
		clientAuth tls.ClientAuthType
		dialErr    string // what the client's error says; "" for success
		serverSaw  string // the client certificate's CN the server saw
	}{
		{name: "trusted CA", props: "ssl.truststore.type=PEM\nssl.truststore.location={PKI}/ca.pem\n"},
		{name: "librdkafka CA", props: "ssl.ca.location={PKI}/ca.pem\n"},
		{name: "unknown CA", props: "ssl.truststore.location={PKI}/other-ca.pem\n", dialErr: "certificate signed by unknown authority"},
		{name: "name mismatch", names: []string{"broker.example"}, props: "ssl.truststore.location={PKI}/ca.pem\n",
			dialErr: "cannot validate certificate for 127.0.0.1"},
		{name: "name check off (Java)", names: []string{"broker.example"},
			props: "ssl.truststore.location={PKI}/ca.pem\nssl.endpoint.identification.algorithm=\n"},
		{name: "name check off, chain still checked", names: []string{"broker.example"},
			props:   "ssl.ca.location={PKI}/other-ca.pem\nssl.endpoint.identification.algorithm=none\n",
			dialErr: "certificate signed by unknown authority"},
		{name: "verification off (librdkafka)", props: "ssl.ca.location={PKI}/other-ca.pem\nenable.ssl.certificate.verification=false\n"},
		{name: "mutual TLS, librdkafka files", clientAuth: tls.RequireAndVerifyClientCert,
			props:     "ssl.ca.location={PKI}/ca.pem\nssl.certificate.location={PKI}/client.pem\nssl.key.location={PKI}/client.key\n",
			serverSaw: "reader"},
		{name: "mutual TLS, Java PEM keystore", clientAuth: tls.RequireAndVerifyClientCert,
			props:     "ssl.truststore.location={PKI}/ca.pem\nssl.keystore.type=PEM\nssl.keystore.certificate.chain={CLIENT}\nssl.keystore.key={KEY}\n",
			serverSaw: "reader"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ips []net.IP
			if tt.names == nil {
				ips = []net.IP{net.ParseIP("127.0.0.1")}
			}
			pki := newPKI(t, ips, tt.names)
			addr, result := serve(t, pki, tt.clientAuth)
			read := func(f string) string {
				raw, err := os.ReadFile(filepath.Join(pki.dir, f))
				if err != nil {
					t.Fatal(err)
				}
				return strings.ReplaceAll(strings.TrimSpace(string(raw)), "\n", "\\n\\\n ")
			}
			text := strings.NewReplacer("{PKI}", pki.dir, "{CLIENT}", read("client.pem"), "{KEY}", read("client.key")).
				Replace("security.protocol=SSL\nbootstrap.servers=" + addr + "\n" + tt.props)
			c, err := kafkaconfig.Load(writeProps(t, text))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := c.DialContext(ctx, "tcp", addr)
			if tt.dialErr != "" {
				if err == nil {
					conn.Close()
					t.Fatalf("dial succeeded, want an error saying %q", tt.dialErr)
				}
				if !strings.Contains(err.Error(), tt.dialErr) {
					t.Fatalf("dial error %q, want it to say %q", err, tt.dialErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			defer conn.Close()
			buf := make([]byte, 2)
			if _, err := conn.Read(buf); err != nil {
				t.Fatalf("read after the handshake: %v (server: %s)", err, <-result)
			}
			if got := <-result; got != tt.serverSaw {
				t.Errorf("server saw client certificate %q, want %q", got, tt.serverSaw)
			}
		})
	}
}
