package onnxpb

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

func sample() *Model {
	return &Model{
		ProducerName: "test",
		Graph: Graph{
			Name:         "g",
			Inputs:       []ValueInfo{{Name: "x", Type: Float, Dims: []Dim{{Param: "N"}, {Value: 2}}}},
			Outputs:      []ValueInfo{{Name: "y", Type: Float, Dims: []Dim{{Param: "N"}, {Value: 1}}}},
			Initializers: []Tensor{FloatTensor("w", []float32{0.5, -1}, 2, 1)},
			Nodes:        []Node{{OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"y"}, Attrs: []Attr{IntAttr("unused", 3)}}},
		},
		Metadata: [][2]string{{"k", "v"}},
	}
}

// fields decodes one message level into field number -> raw values.
func fields(t *testing.T, b []byte) map[protowire.Number][][]byte {
	t.Helper()
	out := map[protowire.Number][][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		require.GreaterOrEqual(t, n, 0)
		b = b[n:]
		var v []byte
		switch typ {
		case protowire.VarintType:
			x, m := protowire.ConsumeVarint(b)
			require.GreaterOrEqual(t, m, 0)
			v, b = protowire.AppendVarint(nil, x), b[m:]
		case protowire.BytesType:
			x, m := protowire.ConsumeBytes(b)
			require.GreaterOrEqual(t, m, 0)
			v, b = x, b[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			require.GreaterOrEqual(t, m, 0)
			v, b = b[:m], b[m:]
		}
		out[num] = append(out[num], v)
	}
	return out
}

func varint(t *testing.T, b []byte) uint64 {
	v, n := protowire.ConsumeVarint(b)
	require.Equal(t, len(b), n)
	return v
}

func TestMarshal(t *testing.T) {
	b := sample().Marshal()
	assert.True(t, bytes.Equal(b, sample().Marshal()), "encoding is deterministic")

	model := fields(t, b)
	assert.Equal(t, uint64(DefaultIRVersion), varint(t, model[1][0]), "ir_version")
	assert.Equal(t, "test", string(model[2][0]), "producer_name")
	opset := fields(t, model[8][0])
	assert.Equal(t, uint64(DefaultOpset), varint(t, opset[2][0]), "opset version")
	meta := fields(t, model[14][0])
	assert.Equal(t, "k", string(meta[1][0]))

	graph := fields(t, model[7][0])
	require.Len(t, graph[1], 1, "one node")
	node := fields(t, graph[1][0])
	assert.Equal(t, "MatMul", string(node[4][0]))
	assert.Equal(t, []string{"x", "w"}, []string{string(node[1][0]), string(node[1][1])})
	attr := fields(t, node[5][0])
	assert.Equal(t, uint64(3), varint(t, attr[3][0]))
	assert.Equal(t, uint64(AttrInt), varint(t, attr[20][0]))

	tensor := fields(t, graph[5][0])
	assert.Equal(t, "w", string(tensor[8][0]))
	assert.Equal(t, []byte{0, 0, 0, 0x3f, 0, 0, 0x80, 0xbf}, tensor[9][0], "raw little-endian float32 0.5, -1")

	in := fields(t, graph[11][0])
	assert.Equal(t, "x", string(in[1][0]))
	tt := fields(t, fields(t, in[2][0])[1][0])
	assert.Equal(t, uint64(Float), varint(t, tt[1][0]))
	dims := fields(t, tt[2][0])[1]
	require.Len(t, dims, 2)
	assert.Equal(t, "N", string(fields(t, dims[0])[2][0]))
	assert.Equal(t, uint64(2), varint(t, fields(t, dims[1])[1][0]))
}

func TestMarshalMLDomainAndListAttributes(t *testing.T) {
	m := sample()
	m.Imports = []OpsetImport{{Domain: MLDomain, Version: 3}}
	m.Graph.Nodes[0] = Node{OpType: "TreeEnsembleRegressor", Domain: MLDomain, Inputs: []string{"x"}, Outputs: []string{"y"},
		Attrs: []Attr{FloatsAttr("nodes_values", 0.5, -1), StringsAttr("nodes_modes", "BRANCH_GT", "LEAF"), StringAttr("post_transform", "NONE")}}
	model := fields(t, m.Marshal())
	require.Len(t, model[8], 2, "default opset, then the imports")
	ml := fields(t, model[8][1])
	assert.Equal(t, MLDomain, string(ml[1][0]))
	assert.Equal(t, uint64(3), varint(t, ml[2][0]))

	node := fields(t, fields(t, model[7][0])[1][0])
	assert.Equal(t, MLDomain, string(node[7][0]), "node domain")
	require.Len(t, node[5], 3)
	floats := fields(t, node[5][0])
	assert.Equal(t, []byte{0, 0, 0, 0x3f, 0, 0, 0x80, 0xbf}, floats[7][0], "packed float32 0.5, -1")
	assert.Equal(t, uint64(AttrFloats), varint(t, floats[20][0]))
	strs := fields(t, node[5][1])
	assert.Equal(t, []string{"BRANCH_GT", "LEAF"}, []string{string(strs[9][0]), string(strs[9][1])})
	assert.Equal(t, uint64(AttrStrings), varint(t, strs[20][0]))
	str := fields(t, node[5][2])
	assert.Equal(t, "NONE", string(str[4][0]))

	plain := fields(t, sample().Marshal())
	assert.Len(t, plain[8], 1, "no imports, one opset")
	assert.Empty(t, fields(t, fields(t, plain[7][0])[1][0])[7], "default-domain nodes carry no domain")
}

// TestMarshalGraphAttribute: an If node's branches are GRAPH attributes (type 5), the
// subgraph in field 6 encoded as a graph is.
func TestMarshalGraphAttribute(t *testing.T) {
	branch := &Graph{
		Name:    "then",
		Outputs: []ValueInfo{{Name: "z", Type: Float, Dims: []Dim{{Param: "N"}, {Value: 1}}}},
		Nodes:   []Node{{OpType: "Identity", Inputs: []string{"y"}, Outputs: []string{"z"}}},
	}
	m := sample()
	m.Graph.Nodes = append(m.Graph.Nodes, Node{OpType: "If", Inputs: []string{"c"}, Outputs: []string{"o"}, Attrs: []Attr{GraphAttr("then_branch", branch)}})
	graph := fields(t, fields(t, m.Marshal())[7][0])
	attr := fields(t, fields(t, graph[1][1])[5][0])
	assert.Equal(t, "then_branch", string(attr[1][0]))
	assert.Equal(t, uint64(AttrGraph), varint(t, attr[20][0]))
	assert.Equal(t, branch.marshal(), attr[6][0], "the subgraph, encoded as a graph")
	assert.Equal(t, "then", string(fields(t, attr[6][0])[2][0]))
}
