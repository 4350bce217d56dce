package benchmarks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot("")
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "go.mod"))
	sub, err := ModuleRoot(filepath.Join(root, "scorers", "onnx"))
	require.NoError(t, err)
	assert.Equal(t, root, sub)
	_, err = ModuleRoot(t.TempDir())
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestGoSourceLines(t *testing.T) {
	lines, err := GoSourceLines(10000)
	if err != nil {
		t.Skipf("no Go sources here: %v", err)
	}
	require.Len(t, lines, 10000, "repeated to the length asked")
	assert.Equal(t, "// Copyright 2009 The Go Authors. All rights reserved.", lines[0])
	short, err := GoSourceLines(3)
	require.NoError(t, err)
	assert.Equal(t, lines[:3], short)
}
