// Package attest signs what a qualification publishes: a manifest of every file in a run
// directory with its sha256, as an in-toto Statement v1 (subjects = the files; predicate = the
// run's id, target, versions, hardware and commands from evidence.json) in a DSSE envelope
// signed with ed25519 or ECDSA P-256. The envelope and the Statement types come from
// go-securesystemslib and in-toto/attestation, so any DSSE/in-toto verifier can check a run.
package attest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

// GenerateKey makes an ed25519 pair: the private key as PKCS#8 PEM, the public key as PKIX PEM
// (the encodings openssl, Python's cryptography and securesystemslib read).
func GenerateKey() (privatePEM, publicPEM []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate ed25519 key: %w", err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("encode private key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("encode public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}

// Fingerprint is the hex sha256 of the public key's PKIX DER encoding; it is also the DSSE keyid,
// so anyone holding the .pub file can recompute it (`openssl pkey -pubin -outform DER | sha256sum`).
func Fingerprint(publicPEM []byte) (string, error) {
	der, _, err := parsePublic(publicPEM)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:]), nil
}

// PublicFromPrivate returns the PKIX PEM of a private key's public half.
func PublicFromPrivate(privatePEM []byte) ([]byte, error) {
	block, _ := pem.Decode(privatePEM)
	if block == nil {
		return nil, errors.New("signing key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key is not a PKCS#8 private key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, errors.New("signing key has no public half")
	}
	der, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		return nil, fmt.Errorf("encode public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// parsePublic decodes a PKIX PEM public key and accepts only the two supported algorithms.
func parsePublic(publicPEM []byte) ([]byte, any, error) {
	block, _ := pem.Decode(publicPEM)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, nil, errors.New("public key is not a PEM \"PUBLIC KEY\" block")
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("public key: %w", err)
	}
	if err := supported(key); err != nil {
		return nil, nil, err
	}
	return block.Bytes, key, nil
}

func supported(key any) error {
	switch k := key.(type) {
	case ed25519.PublicKey:
		return nil
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return nil
		}
		return fmt.Errorf("ECDSA key on %s: only P-256 is accepted", k.Curve.Params().Name)
	default:
		return fmt.Errorf("key type %T: only ed25519 and ECDSA P-256 are accepted", key)
	}
}

// signerVerifier builds the securesystemslib signer (private PEM) or verifier (public PEM) with
// the fingerprint as its keyid.
func signerVerifier(keyPEM []byte, fingerprint string) (dsse.SignerVerifier, error) {
	key, err := signerverifier.LoadKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("load key: %w", err)
	}
	key.KeyID = fingerprint
	switch key.KeyType {
	case signerverifier.ED25519KeyType:
		return signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	case signerverifier.ECDSAKeyType:
		return signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
	default:
		return nil, fmt.Errorf("key type %s: only ed25519 and ECDSA P-256 are accepted", key.KeyType)
	}
}
