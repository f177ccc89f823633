package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

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
// visitors never see the server's identity change silently. So is a
// directory others may write, where they could put a key of their own.
func LoadHostKey(dir string) (gossh.Signer, string, error) {
	if dir == "" {
		return nil, "", errors.New("no state directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("state directory: %w", err)
	}
	if info, err := os.Stat(dir); err != nil {
		return nil, "", fmt.Errorf("state directory: %w", err)
	} else if othersWrite(info) {
		return nil, "", fmt.Errorf("state directory %s has permissions %04o: others could replace the host key in it (chmod 700 %s)",
			dir, info.Mode().Perm(), dir)
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
// owner only, in a directory others may not write, and parse; it is never
// generated or changed.
func LoadHostKeyFile(path string) (gossh.Signer, error) {
	if path == "" {
		return nil, errors.New("no host key file given")
	}
	dir := filepath.Dir(path)
	if info, err := os.Stat(dir); err == nil && othersWrite(info) {
		return nil, fmt.Errorf("host key %s is in %s, which has permissions %04o: others could replace the key "+
			"(chmod go-w %s, or keep the key in a directory only its owner may write)", path, dir, info.Mode().Perm(), dir)
	}
	return readHostKey(path, "make one with "+keygen(path))
}

// minRSABits is the smallest RSA host key served (NIST's floor since 2014).
const minRSABits = 2048

// readHostKey reads and parses a private key file that only its owner, the
// user running the server, may read (another user could change it); hint
// says how to fix it. An RSA key under minRSABits is refused.
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
	if uid, ok := owner(info); ok && uid != os.Geteuid() {
		return nil, fmt.Errorf("host key %s belongs to user %d, who could change it, not to user %d who runs this server (chown %d %s)",
			path, uid, os.Geteuid(), os.Geteuid(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host key %s exists but cannot be read: %w (fix it, or %s)", path, err, hint)
	}
	signer, err := gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("host key %s exists but is not a usable private key: %w (fix it, or %s)", path, err, hint)
	}
	if bits := rsaBits(signer.PublicKey()); bits > 0 && bits < minRSABits {
		return nil, fmt.Errorf("host key %s is a %d-bit RSA key, too weak: lab serve wants %d bits at least (generate an Ed25519 key in its place: %s)",
			path, bits, minRSABits, keygen(path))
	}
	return signer, nil
}

// keygen is the command that makes an Ed25519 key at path.
func keygen(path string) string { return "ssh-keygen -t ed25519 -N '' -f " + path }

// rsaBits is the size of an RSA key, 0 for any other.
func rsaBits(k gossh.PublicKey) int {
	ck, ok := k.(gossh.CryptoPublicKey)
	if !ok {
		return 0
	}
	if rk, ok := ck.CryptoPublicKey().(*rsa.PublicKey); ok {
		return rk.N.BitLen()
	}
	return 0
}

// othersWrite reports whether group or others may write to a file.
func othersWrite(info fs.FileInfo) bool { return info.Mode().Perm()&0o022 != 0 }

// owner is the user owning a file, where the system says.
func owner(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
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
