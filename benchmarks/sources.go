package benchmarks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot returns the nearest directory at or above start (the working directory when
// start is empty) that holds a go.mod: where tests find the repository's files.
func ModuleRoot(start string) (string, error) {
	dir, err := absStart(start)
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	start = dir
	for {
		if fileExists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("module root: no go.mod at or above %s: %w", start, os.ErrNotExist)
		}
		dir = parent
	}
}

// absStart is start as an absolute path, the working directory when start is empty.
func absStart(start string) (string, error) {
	if start == "" {
		return os.Getwd()
	}
	return filepath.Abs(start)
}

// GoSource returns real Go source, the toolchain's own net/http/server.go (about 4,000
// lines), for benchmarks that want realistic code without shared data. The toolchain is the
// go command's (`go env GOROOT`), not the one this binary was built with: a test binary
// copied elsewhere still finds it. It fails where there is no go command or no sources.
func GoSource() ([]byte, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go source: go env GOROOT: %w", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "server.go"))
	if err != nil {
		return nil, fmt.Errorf("go source: %w", err)
	}
	return src, nil
}

// GoSourceLines returns n lines of GoSource, repeated as needed.
func GoSourceLines(n int) ([]string, error) {
	src, err := GoSource()
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	out := make([]string, 0, n)
	for len(out) < n {
		out = append(out, lines[:min(len(lines), n-len(out))]...)
	}
	return out, nil
}
