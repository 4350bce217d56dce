package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx"
)

// onnxThreadsEnv sets the intra-op threads of one onnxruntime run (default 1).
const onnxThreadsEnv = "MCP_PRUNER_ONNX_THREADS"

// registerONNX adds the onnx family ("onnx:models/linerank"). The runtime library and the
// model load when a spec is first used (at start-up for --scorer), so a missing library is
// a clear error for that scorer while the others keep working.
func registerONNX(reg *engine.Registry) error {
	threads := 1
	if v, ok := os.LookupEnv(onnxThreadsEnv); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return usagef("%s=%q: want a positive integer", onnxThreadsEnv, v)
		}
		threads = n
	}
	reg.RegisterFamily("onnx", "ONNX model directory (model.json + model.onnx) run by onnxruntime, e.g. onnx:models/linerank",
		func(ctx context.Context, arg string) (engine.Scorer, error) {
			dir, err := onnx.ParseSpec(arg)
			if err != nil {
				return nil, err
			}
			return onnx.Open(ctx, findModelDir(dir), onnx.Options{LibraryPath: onnxLibrary(), IntraOpThreads: threads})
		})
	return nil
}

// onnxLibrary is MCP_PRUNER_ONNXRUNTIME_LIB, else the .tools copy above the working directory
// or the executable (scripts/install-onnxruntime.sh).
func onnxLibrary() string {
	if p := os.Getenv(onnx.LibraryEnv); p != "" {
		return p
	}
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
