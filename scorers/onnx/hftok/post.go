package hftok

import (
	"encoding/json"
	"fmt"
)

// piece is one element of a template: a special token or sequence A/B, with its type id.
type piece struct {
	special bool
	ids     []int64
	seq     string // "A" or "B"
	typeID  int64
}

// postProcessor adds special tokens around one sequence or a pair.
type postProcessor struct {
	singleT, pairT []piece
}

func (p postProcessor) added(pair bool) int {
	t := p.singleT
	if pair {
		t = p.pairT
	}
	n := 0
	for _, pc := range t {
		n += len(pc.ids)
	}
	return n
}

func (p postProcessor) apply(t []piece, a, b []int64) Encoding {
	var e Encoding
	for _, pc := range t {
		ids := pc.ids
		if !pc.special {
			ids = a
			if pc.seq == "B" {
				ids = b
			}
		}
		e.IDs = append(e.IDs, ids...)
		for range ids {
			e.TypeIDs = append(e.TypeIDs, pc.typeID)
		}
	}
	return e
}

func (p postProcessor) single(a []int64) Encoding  { return p.apply(p.singleT, a, nil) }
func (p postProcessor) pair(a, b []int64) Encoding { return p.apply(p.pairT, a, b) }

func parsePostProcessor(raw json.RawMessage, t *Tokenizer) (postProcessor, error) {
	if len(raw) == 0 || string(raw) == "null" {
		// No special tokens: sequences are concatenated, B with type id 1.
		return postProcessor{
			singleT: []piece{{seq: "A"}},
			pairT:   []piece{{seq: "A"}, {seq: "B", typeID: 1}},
		}, nil
	}
	var ty typed
	if err := json.Unmarshal(raw, &ty); err != nil {
		return postProcessor{}, err
	}
	tokenPair := func(v [2]any) ([]int64, error) {
		name, _ := v[0].(string)
		if id, ok := v[1].(float64); ok {
			return []int64{int64(id)}, nil
		}
		if id, ok := t.tokenID(name); ok {
			return []int64{id}, nil
		}
		return nil, fmt.Errorf("post_processor: special token %q unknown", name)
	}
	switch ty.Type {
	case "BertProcessing", "RobertaProcessing":
		var c struct {
			Sep [2]any `json:"sep"`
			Cls [2]any `json:"cls"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return postProcessor{}, err
		}
		sep, err := tokenPair(c.Sep)
		if err != nil {
			return postProcessor{}, err
		}
		cls, err := tokenPair(c.Cls)
		if err != nil {
			return postProcessor{}, err
		}
		if ty.Type == "BertProcessing" {
			return postProcessor{
				singleT: []piece{{special: true, ids: cls}, {seq: "A"}, {special: true, ids: sep}},
				pairT: []piece{{special: true, ids: cls}, {seq: "A"}, {special: true, ids: sep},
					{seq: "B", typeID: 1}, {special: true, ids: sep, typeID: 1}},
			}, nil
		}
		// RoBERTa: <s> A </s></s> B </s>, all type id 0.
		return postProcessor{
			singleT: []piece{{special: true, ids: cls}, {seq: "A"}, {special: true, ids: sep}},
			pairT: []piece{{special: true, ids: cls}, {seq: "A"}, {special: true, ids: sep},
				{special: true, ids: sep}, {seq: "B"}, {special: true, ids: sep}},
		}, nil
	case "TemplateProcessing":
		var c struct {
			Single        []map[string]json.RawMessage `json:"single"`
			Pair          []map[string]json.RawMessage `json:"pair"`
			SpecialTokens map[string]struct {
				IDs []int64 `json:"ids"`
			} `json:"special_tokens"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return postProcessor{}, err
		}
		conv := func(tmpl []map[string]json.RawMessage) ([]piece, error) {
			var out []piece
			for _, el := range tmpl {
				if r, ok := el["SpecialToken"]; ok {
					var st struct {
						ID     string `json:"id"`
						TypeID int64  `json:"type_id"`
					}
					if err := json.Unmarshal(r, &st); err != nil {
						return nil, err
					}
					spec, ok := c.SpecialTokens[st.ID]
					if !ok {
						return nil, fmt.Errorf("post_processor: template token %q has no ids", st.ID)
					}
					out = append(out, piece{special: true, ids: spec.IDs, typeID: st.TypeID})
					continue
				}
				if r, ok := el["Sequence"]; ok {
					var sq struct {
						ID     string `json:"id"`
						TypeID int64  `json:"type_id"`
					}
					if err := json.Unmarshal(r, &sq); err != nil {
						return nil, err
					}
					out = append(out, piece{seq: sq.ID, typeID: sq.TypeID})
					continue
				}
				return nil, fmt.Errorf("%w: template element %v", ErrUnsupported, el)
			}
			return out, nil
		}
		s, err := conv(c.Single)
		if err != nil {
			return postProcessor{}, err
		}
		p, err := conv(c.Pair)
		if err != nil {
			return postProcessor{}, err
		}
		return postProcessor{singleT: s, pairT: p}, nil
	case "ByteLevel":
		return parsePostProcessor(nil, t)
	}
	return postProcessor{}, fmt.Errorf("%w: post_processor %q", ErrUnsupported, ty.Type)
}
