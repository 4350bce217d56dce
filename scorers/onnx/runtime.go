package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// LibraryEnv is the environment variable cmd reads for the onnxruntime shared library's path.
const LibraryEnv = "MCP_PRUNER_ONNXRUNTIME_LIB"

// DefaultLibraryRel is where scripts/install-onnxruntime.sh puts the library, relative to the
// module root.
const DefaultLibraryRel = ".tools/onnxruntime/libonnxruntime.so"

// ErrRuntimeUnavailable is wrapped by every error about loading the onnxruntime library.
var ErrRuntimeUnavailable = errors.New("onnxruntime unavailable")

// The onnxruntime environment is process-wide (one dlopen'ed library, one OrtEnv), so its
// state is too: the first successful initialisation fixes the library path for the process.
var runtimeState struct {
	mu   sync.Mutex
	path string
	err  error
	done bool
}

// initRuntime loads the library at path once per process. A later call with another path
// fails rather than silently using the first library; a failed load is retried on the next
// call (the operator may have installed the library meanwhile).
func initRuntime(path string) error {
	if path == "" {
		return fmt.Errorf("%w: no library path (run scripts/install-onnxruntime.sh, or set %s or --onnxruntime-lib)", ErrRuntimeUnavailable, LibraryEnv)
	}
	runtimeState.mu.Lock()
	defer runtimeState.mu.Unlock()
	if runtimeState.done {
		if runtimeState.path != path {
			return fmt.Errorf("%w: already initialised with %s, cannot switch to %s", ErrRuntimeUnavailable, runtimeState.path, path)
		}
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w: library %s: %v (run scripts/install-onnxruntime.sh, or set %s)", ErrRuntimeUnavailable, path, err, LibraryEnv)
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("%w: %s: %v (run scripts/install-onnxruntime.sh, or set %s)", ErrRuntimeUnavailable, path, err, LibraryEnv)
	}
	runtimeState.path, runtimeState.done = path, true
	return nil
}

// RuntimeVersion returns the loaded onnxruntime's version, or "" before a model was opened.
func RuntimeVersion() string {
	runtimeState.mu.Lock()
	defer runtimeState.mu.Unlock()
	if !runtimeState.done {
		return ""
	}
	return ort.GetVersion()
}

// FindLibrary returns the first existing DefaultLibraryRel under the module root above each
// start directory (the working directory, the executable's directory...), or "" when there
// is none. cmd calls it when neither the flag nor the environment names a library.
func FindLibrary(starts ...string) string {
	for _, s := range starts {
		if s == "" {
			continue
		}
		dir, err := filepath.Abs(s)
		if err != nil {
			continue
		}
		for {
			cand := filepath.Join(dir, filepath.FromSlash(DefaultLibraryRel))
			if _, err := os.Stat(cand); err == nil {
				return cand
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break // the module root: look no further up
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return ""
}
