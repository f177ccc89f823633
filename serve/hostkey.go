package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// HostKeyFile is the name of the host key inside the state directory.
const HostKeyFile = "ssh_host_ed25519_key"

// DefaultStateDir is where `lab serve` keeps its host key unless told
// otherwise: $XDG_STATE_HOME/lab, else ~/.local/state/lab.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "lab"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %w (give one with --state-dir)", err)
	}
	return filepath.Join(home, ".local", "state", "lab"), nil
}

// LoadHostKey returns the server's host key from dir, generating an Ed25519
// key on first use. The directory is created owner-only (0700) and the key
// written owner-only (0600), never overwriting a file: a key that exists but
// cannot be read or parsed, or that others may read, is an error, so that
// visitors never see the server's identity change silently.
func LoadHostKey(dir string) (gossh.Signer, string, error) {
	if dir == "" {
		return nil, "", errors.New("no state directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("state directory: %w", err)
	}
	path := filepath.Join(dir, HostKeyFile)
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		signer, err := generateHostKey(path)
		return signer, path, err
	case err != nil:
		return nil, path, fmt.Errorf("host key %s exists but cannot be read: %w", path, err)
	case !info.Mode().IsRegular():
		return nil, path, fmt.Errorf("host key %s exists but is not a regular file (remove it to generate a new key)", path)
	case info.Mode().Perm()&0o077 != 0:
		return nil, path, fmt.Errorf("host key %s has permissions %04o: it must be readable by its owner only (chmod 600 %s)",
			path, info.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, fmt.Errorf("host key %s exists but cannot be read: %w (fix it, or remove it to generate a new key)", path, err)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, path, fmt.Errorf("host key %s exists but is not a usable private key: %w (fix it, or remove it to generate a new key)", path, err)
	}
	return signer, path, nil
}

// generateHostKey writes a new Ed25519 key in OpenSSH format to path, which
// must not exist yet.
func generateHostKey(path string) (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "lab serve host key")
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("write host key: %w", err)
	}
	_, err = f.Write(pem.EncodeToMemory(block))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write host key: %w", err)
	}
	return gossh.NewSignerFromKey(priv)
}

// LoadAuthorizedKeys parses an authorized_keys file (blank lines and #
// comments allowed). An unreadable file, a bad line or an empty list is an
// error naming the file and line.
func LoadAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	var keys []gossh.PublicKey
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(l)
		if err != nil {
			return nil, fmt.Errorf("authorized keys %s:%d: %w", path, i+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("authorized keys %s: no keys (nobody could connect)", path)
	}
	return keys, nil
}
