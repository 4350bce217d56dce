// Package onnxpb writes ONNX model files (onnx.ModelProto) from a small Go description of a
// graph. It hand-encodes the protobuf wire format with google.golang.org/protobuf's protowire
// rather than vendoring generated onnx.proto types: the few messages a model exporter needs
// (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto, TypeProto,
// TensorShapeProto, OperatorSetIdProto, StringStringEntryProto) fit in one file, and the field
// numbers below are those of onnx/onnx.proto (IR version 8).
//
// Output is deterministic: fields are written in a fixed order and floats as little-endian
// raw_data, so the same graph always gives the same bytes.
//
// It imports protowire and the standard library only.
package onnxpb

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// DataType is onnx.TensorProto.DataType.
type DataType int32

// The element types this package writes.
const (
	Float DataType = 1
	Int64 DataType = 7
)

// Defaults for new models: IR version 8 (ONNX 1.10+) with the default-domain opset 13, both
// long supported by onnxruntime.
const (
	DefaultIRVersion = 8
	DefaultOpset     = 13
)

// Model is an ONNX model: one graph plus metadata.
type Model struct {
	IRVersion       int64 // DefaultIRVersion when 0
	Opset           int64 // DefaultOpset when 0
	ProducerName    string
	ProducerVersion string
	Doc             string
	Graph           Graph
	// Imports are operator sets besides the default domain's (e.g. "ai.onnx.ml"), in order.
	Imports []OpsetImport
	// Metadata becomes metadata_props, in the given order.
	Metadata [][2]string
}

// OpsetImport is one opset_import entry: an operator domain and its version.
type OpsetImport struct {
	Domain  string
	Version int64
}

// MLDomain is the domain of ONNX-ML operators such as TreeEnsembleRegressor.
const MLDomain = "ai.onnx.ml"

// Graph is a computation graph.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
}

// Node is one operator application.
type Node struct {
	Name    string
	OpType  string
	Inputs  []string
	Outputs []string
	Attrs   []Attr
	Domain  string // "" is the default domain
}

// Attr is a node attribute; exactly one of its value fields is meaningful, chosen by Kind.
type Attr struct {
	Name   string
	Kind   AttrKind
	Int    int64
	Float  float32
	Ints   []int64
	Str    string
	Floats []float32
	Strs   []string
	Graph  *Graph // a subgraph (If's branches)
}

// AttrKind is onnx.AttributeProto.AttributeType.
type AttrKind int32

// The attribute kinds this package writes.
const (
	AttrFloat   AttrKind = 1
	AttrInt     AttrKind = 2
	AttrString  AttrKind = 3
	AttrGraph   AttrKind = 5
	AttrFloats  AttrKind = 6
	AttrInts    AttrKind = 7
	AttrStrings AttrKind = 8
)

// IntAttr returns an INT attribute.
func IntAttr(name string, v int64) Attr { return Attr{Name: name, Kind: AttrInt, Int: v} }

// IntsAttr returns an INTS attribute.
func IntsAttr(name string, v ...int64) Attr { return Attr{Name: name, Kind: AttrInts, Ints: v} }

// FloatsAttr returns a FLOATS attribute.
func FloatsAttr(name string, v ...float32) Attr { return Attr{Name: name, Kind: AttrFloats, Floats: v} }

// StringAttr returns a STRING attribute.
func StringAttr(name, v string) Attr { return Attr{Name: name, Kind: AttrString, Str: v} }

// StringsAttr returns a STRINGS attribute.
func StringsAttr(name string, v ...string) Attr { return Attr{Name: name, Kind: AttrStrings, Strs: v} }

// GraphAttr returns a GRAPH attribute (a subgraph, such as an If node's branch).
func GraphAttr(name string, g *Graph) Attr { return Attr{Name: name, Kind: AttrGraph, Graph: g} }

// FloatAttr returns a FLOAT attribute.
func FloatAttr(name string, v float32) Attr { return Attr{Name: name, Kind: AttrFloat, Float: v} }

// Tensor is a constant (an initializer). Float tensors use Floats, int64 tensors Int64s.
type Tensor struct {
	Name   string
	Dims   []int64
	Type   DataType
	Floats []float32
	Int64s []int64
}

// FloatTensor returns a float tensor of the given shape.
func FloatTensor(name string, data []float32, dims ...int64) Tensor {
	return Tensor{Name: name, Dims: dims, Type: Float, Floats: data}
}

// Int64Tensor returns an int64 tensor of the given shape.
func Int64Tensor(name string, data []int64, dims ...int64) Tensor {
	return Tensor{Name: name, Dims: dims, Type: Int64, Int64s: data}
}

// Dim is one dimension of a value's shape: a fixed size, or a named symbolic one.
type Dim struct {
	Value int64
	Param string
}

// ValueInfo declares a graph input or output.
type ValueInfo struct {
	Name string
	Type DataType
	Dims []Dim
}

// Marshal encodes m as an onnx.ModelProto.
func (m *Model) Marshal() []byte {
	ir, opset := m.IRVersion, m.Opset
	if ir == 0 {
		ir = DefaultIRVersion
	}
	if opset == 0 {
		opset = DefaultOpset
	}
	var b []byte
	b = appendVarintField(b, 1, uint64(ir))
	b = appendStringField(b, 2, m.ProducerName)
	b = appendStringField(b, 3, m.ProducerVersion)
	b = appendStringField(b, 6, m.Doc)
	b = appendMessage(b, 7, m.Graph.marshal())
	var os []byte
	os = appendStringField(os, 1, "")
	os = appendVarintField(os, 2, uint64(opset))
	b = appendMessage(b, 8, os)
	for _, imp := range m.Imports {
		var e []byte
		e = appendStringField(e, 1, imp.Domain)
		e = appendVarintField(e, 2, uint64(imp.Version))
		b = appendMessage(b, 8, e)
	}
	for _, kv := range m.Metadata {
		var e []byte
		e = appendStringField(e, 1, kv[0])
		e = appendStringField(e, 2, kv[1])
		b = appendMessage(b, 14, e)
	}
	return b
}

func (g *Graph) marshal() []byte {
	var b []byte
	for i := range g.Nodes {
		b = appendMessage(b, 1, g.Nodes[i].marshal())
	}
	b = appendStringField(b, 2, g.Name)
	for i := range g.Initializers {
		b = appendMessage(b, 5, g.Initializers[i].marshal())
	}
	for i := range g.Inputs {
		b = appendMessage(b, 11, g.Inputs[i].marshal())
	}
	for i := range g.Outputs {
		b = appendMessage(b, 12, g.Outputs[i].marshal())
	}
	return b
}

func (n *Node) marshal() []byte {
	var b []byte
	for _, in := range n.Inputs {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, in)
	}
	for _, out := range n.Outputs {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, out)
	}
	b = appendStringField(b, 3, n.Name)
	b = appendStringField(b, 4, n.OpType)
	for i := range n.Attrs {
		b = appendMessage(b, 5, n.Attrs[i].marshal())
	}
	b = appendStringField(b, 7, n.Domain)
	return b
}

func (a *Attr) marshal() []byte {
	var b []byte
	b = appendStringField(b, 1, a.Name)
	switch a.Kind {
	case AttrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.Float))
	case AttrInt:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.Int))
	case AttrString:
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendString(b, a.Str)
	case AttrInts:
		var p []byte
		for _, v := range a.Ints {
			p = protowire.AppendVarint(p, uint64(v))
		}
		b = appendMessage(b, 8, p)
	case AttrFloats:
		var p []byte
		for _, v := range a.Floats {
			p = protowire.AppendFixed32(p, math.Float32bits(v))
		}
		b = appendMessage(b, 7, p)
	case AttrGraph:
		b = appendMessage(b, 6, a.Graph.marshal())
	case AttrStrings:
		for _, v := range a.Strs {
			b = protowire.AppendTag(b, 9, protowire.BytesType)
			b = protowire.AppendString(b, v)
		}
	}
	b = appendVarintField(b, 20, uint64(a.Kind))
	return b
}

func (t *Tensor) marshal() []byte {
	var b []byte
	if len(t.Dims) > 0 {
		var p []byte
		for _, d := range t.Dims {
			p = protowire.AppendVarint(p, uint64(d))
		}
		b = appendMessage(b, 1, p)
	}
	b = appendVarintField(b, 2, uint64(t.Type))
	b = appendStringField(b, 8, t.Name)
	var raw []byte
	switch t.Type {
	case Float:
		raw = make([]byte, 4*len(t.Floats))
		for i, v := range t.Floats {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
	case Int64:
		raw = make([]byte, 8*len(t.Int64s))
		for i, v := range t.Int64s {
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
		}
	}
	b = protowire.AppendTag(b, 9, protowire.BytesType)
	b = protowire.AppendBytes(b, raw)
	return b
}

func (v *ValueInfo) marshal() []byte {
	var shape []byte
	for _, d := range v.Dims {
		var dim []byte
		if d.Param != "" {
			dim = appendStringField(dim, 2, d.Param)
		} else {
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, uint64(d.Value))
		}
		shape = appendMessage(shape, 1, dim)
	}
	var tt []byte
	tt = appendVarintField(tt, 1, uint64(v.Type))
	tt = protowire.AppendTag(tt, 2, protowire.BytesType)
	tt = protowire.AppendBytes(tt, shape)
	var typ []byte
	typ = appendMessage(typ, 1, tt)
	var b []byte
	b = appendStringField(b, 1, v.Name)
	b = appendMessage(b, 2, typ)
	return b
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendStringField(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}
