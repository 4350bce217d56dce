package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// Schema is the subset of JSON Schema the tools use. It is both what tools/list serves and
// what arguments are validated against, so the published schema and the server's behaviour
// cannot drift apart.
type Schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
	Examples             []json.RawMessage  `json:"examples,omitempty"`

	// engineBounds marks Minimum/Maximum as checked by the engine with a domain error
	// (recovery ranges answer -32005 invalid_range, as the reference does), not here.
	engineBounds bool
}

func num(f float64) *float64 { return &f }
func boolp(b bool) *bool     { return &b }

// errNotObject is returned when tool arguments are not a JSON object.
var errNotObject = &engine.FieldError{Field: "arguments", Problem: "must be a JSON object"}

// validate checks raw, which must be valid JSON (the transports have parsed the message it
// comes from), against s and returns a *engine.FieldError naming the first offending field
// (in a stable order: missing required fields, unknown fields, then each property by name).
// Empty raw is treated as {}. It splits values without decoding them, so long strings (the
// text) are skimmed, never unquoted or copied.
func (s *Schema) validate(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return errNotObject
	}
	return s.check("", raw)
}

func (s *Schema) check(path string, raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return fieldErr(path, "is empty")
	}
	switch s.Type {
	case "object":
		if raw[0] != '{' {
			return fieldErr(path, "must be an object")
		}
		obj, ok := objectFields(raw)
		if !ok {
			return fieldErr(path, "is not a valid JSON object")
		}
		if err := s.missing(path, obj); err != nil {
			return err
		}
		names := make([]string, 0, len(obj))
		for name := range obj {
			names = append(names, name)
		}
		sort.Strings(names)
		if s.AdditionalProperties != nil && !*s.AdditionalProperties {
			for _, name := range names {
				if _, ok := s.Properties[name]; !ok {
					return fieldErr(join(path, name), "is not a known field ("+known(s)+")")
				}
			}
		}
		for _, name := range names {
			if p, ok := s.Properties[name]; ok {
				if err := p.check(join(path, name), obj[name]); err != nil {
					return err
				}
			}
		}
	case "array":
		if raw[0] != '[' {
			return fieldErr(path, "must be an array")
		}
		arr, ok := arrayItems(raw)
		if !ok {
			return fieldErr(path, "is not a valid JSON array")
		}
		for i, item := range arr {
			if err := s.Items.check(path+"["+strconv.Itoa(i)+"]", item); err != nil {
				return err
			}
		}
	case "string":
		if raw[0] != '"' {
			return fieldErr(path, "must be a string")
		}
		if len(s.Enum) > 0 {
			var str string
			if err := json.Unmarshal(raw, &str); err != nil || !contains(s.Enum, str) {
				return fieldErr(path, "must be one of "+quoteAll(s.Enum))
			}
		}
	case "boolean":
		if str := string(raw); str != "true" && str != "false" {
			return fieldErr(path, "must be a boolean")
		}
	case "integer":
		if !isNumber(raw) {
			return fieldErr(path, "must be an integer")
		}
		i, err := strconv.ParseInt(string(raw), 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			// Past int64: said as the bound it breaks, when the schema has one.
			inf := math.Inf(1)
			if raw[0] == '-' {
				inf = math.Inf(-1)
			}
			if err := s.checkBounds(path, inf, "an integer"); err != nil {
				return err
			}
			return fieldErr(path, "is out of range for an integer")
		case err != nil:
			return fieldErr(path, "must be an integer, written without a fraction or an exponent (120, not 120.0 or 1.2e2)")
		}
		return s.checkBounds(path, float64(i), "an integer")
	case "number":
		if !isNumber(raw) {
			return fieldErr(path, "must be a number")
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return fieldErr(path, "must be a finite number")
		}
		return s.checkBounds(path, f, "a number")
	default:
		return fmt.Errorf("schema at %q: unsupported type %q", path, s.Type)
	}
	return nil
}

// missing reports the first required field obj lacks, naming the others it lacks too and,
// for an object, the fields it must hold and the schema's example of it.
func (s *Schema) missing(path string, obj map[string][]byte) error {
	var absent []string
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			absent = append(absent, name)
		}
	}
	if len(absent) == 0 {
		return nil
	}
	fe := &engine.FieldError{Field: join(path, absent[0]), Problem: engine.ProblemRequired}
	if p := s.Properties[absent[0]]; p != nil && p.Type == "object" && len(p.Required) > 0 {
		fe.More = ": an object with " + strings.Join(p.Required, ", ")
		if len(p.Examples) > 0 {
			fe.More += ", e.g. " + string(p.Examples[0])
		}
	}
	if len(absent) > 1 {
		others := make([]string, len(absent)-1)
		for i, name := range absent[1:] {
			others[i] = join(path, name)
		}
		fe.More += "; also missing: " + strings.Join(others, ", ")
	}
	return fe
}

// isNumber reports whether raw (already known to be valid JSON) is a number literal.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

func (s *Schema) checkBounds(path string, f float64, what string) error {
	if s.engineBounds {
		return nil
	}
	lo, hi := s.Minimum, s.Maximum
	switch {
	case lo != nil && hi != nil && (f < *lo || f > *hi):
		return fieldErr(path, fmt.Sprintf("must be %s between %s and %s", what, fmtNum(*lo), fmtNum(*hi)))
	case lo != nil && f < *lo:
		return fieldErr(path, fmt.Sprintf("must be %s >= %s", what, fmtNum(*lo)))
	case hi != nil && f > *hi:
		return fieldErr(path, fmt.Sprintf("must be %s <= %s", what, fmtNum(*hi)))
	}
	return nil
}

// decodeArgs validates raw against s, then decodes it into dst, a pointer to a typed
// arguments struct: member by member, so the large string members are unquoted in one pass
// (unquoteString) and the small ones go through encoding/json.
func decodeArgs(s *Schema, raw []byte, dst any) error {
	if err := s.validate(raw); err != nil {
		return err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	fields, ok := objectFields(raw)
	if !ok {
		return errNotObject
	}
	v := reflect.ValueOf(dst).Elem()
	for i, name := range jsonNames(v.Type()) {
		val, ok := fields[name]
		if !ok {
			continue
		}
		f := v.Field(i)
		if f.Kind() == reflect.String {
			str, err := unquoteString(val)
			if err != nil {
				return fieldErr(name, "must be a string")
			}
			f.SetString(str)
			continue
		}
		if err := json.Unmarshal(val, f.Addr().Interface()); err != nil {
			// Unreachable when the struct matches the schema (a test checks they agree).
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return fieldErr(join(name, te.Field), "must be "+te.Type.String())
			}
			return fieldErr(name, err.Error())
		}
	}
	return nil
}

// fieldNames caches jsonNames: reading struct tags through reflect on every request cost as
// much as decoding the small arguments.
var fieldNames sync.Map // reflect.Type -> []string

// jsonNames returns the JSON member name of each field of the struct type t, by index.
func jsonNames(t reflect.Type) []string {
	if names, ok := fieldNames.Load(t); ok {
		return names.([]string)
	}
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	fieldNames.Store(t, names)
	return names
}

func fieldErr(path, problem string) error {
	if path == "" {
		path = "arguments"
	}
	return &engine.FieldError{Field: path, Problem: problem}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func known(s *Schema) string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "this takes no fields"
	}
	sort.Strings(names)
	return "known: " + strings.Join(names, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// MarshalJSON always writes "properties" for an object schema (some clients require it,
// even when empty).
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	if s.Type == "object" && len(s.Properties) == 0 {
		return json.Marshal(struct {
			*plain
			Properties map[string]*Schema `json:"properties"`
		}{(*plain)(s), map[string]*Schema{}})
	}
	return json.Marshal((*plain)(s))
}
