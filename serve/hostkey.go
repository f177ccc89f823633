package serve

import (
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
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		signer, err := generateHostKey(path)
		return signer, path, err
	}
	signer, err := readHostKey(path, "remove it to generate a new key")
	return signer, path, err
}

// LoadHostKeyFile reads the host key an operator names with --host-key, the
// one key every replica behind a load balancer shares (make it with
// `ssh-keygen -t ed25519 -N ” -f FILE`). It must exist, be readable by its
// owner only and parse; it is never generated or changed.
func LoadHostKeyFile(path string) (gossh.Signer, error) {
	if path == "" {
		return nil, errors.New("no host key file given")
	}
	return readHostKey(path, "make one with ssh-keygen -t ed25519 -N '' -f "+path)
}

// readHostKey reads and parses a private key file that only its owner
// may read; hint says how to fix it.
func readHostKey(path, hint string) (gossh.Signer, error) {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("host key %s cannot be read: %w (%s)", path, err, hint)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("host key %s exists but is not a regular file (%s)", path, hint)
	case info.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("host key %s has permissions %04o: it must be readable by its owner only (chmod 600 %s)",
			path, info.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host key %s exists but cannot be read: %w (fix it, or %s)", path, err, hint)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key %s exists but is not a usable private key: %w (fix it, or %s)", path, err, hint)
	}
	return signer, nil
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
