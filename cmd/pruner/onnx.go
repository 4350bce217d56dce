package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
)

// onnxThreadsEnv sets the intra-op threads of one onnxruntime run (default 1).
const onnxThreadsEnv = "MCP_PRUNER_ONNX_THREADS"

// registerONNX adds the onnx family ("onnx:models/linerank"). The runtime library and the
// model load when a spec is first used (at start-up for --scorer), so a missing library is
// a clear error for that scorer while the others keep working.
func registerONNX(reg *engine.Registry, c *engineConfig) error {
	threads := c.onnxThreads
	switch {
	case threads == 0: // not set by a flag (commands without engine flags)
		threads = 1
	case threads < 0:
		return usagef("--onnx-threads must be >= 1, got %d", threads)
	}
	lib := c.onnxLib
	if lib == "" {
		lib = onnxLibrary()
	}
	reg.RegisterFamily("onnx", "ONNX model directory (model.json + model.onnx) run by onnxruntime, e.g. onnx:models/linerank",
		func(ctx context.Context, arg string) (engine.Scorer, error) {
			dir, err := onnx.ParseSpec(arg)
			if err != nil {
				return nil, err
			}
			return onnx.Open(ctx, findModelDir(dir), onnx.Options{LibraryPath: lib, IntraOpThreads: threads})
		})
	return nil
}

// onnxLibrary is the .tools copy above the working directory or the executable
// (scripts/install-onnxruntime.sh), for when neither --onnxruntime-lib nor
// MCP_PRUNER_ONNXRUNTIME_LIB names one.
func onnxLibrary() string {
	return onnx.FindLibrary(workDir(), exeDir())
}

// findModelDir resolves a relative model directory against the working directory first, then
// the module root above the executable (so bin/pruner finds models/linerank from anywhere).
func findModelDir(dir string) string {
	if filepath.IsAbs(dir) {
		return dir
	}
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	for d := exeDir(); d != ""; {
		cand := filepath.Join(d, dir)
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return dir
}

func workDir() string {
	wd, _ := os.Getwd()
	return wd
}

func exeDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Dir(exe)
}
