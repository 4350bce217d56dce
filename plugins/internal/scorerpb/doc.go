// Package scorerpb holds the Go code generated from plugins/proto/scorer.proto by
// 'make generate'. It is internal so the generated types never leave package plugins.
package scorerpb
