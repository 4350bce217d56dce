package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// ScoreRequest is what a scorer sees of a prune. Fields may be added; scorers ignore what
// they do not use.
type ScoreRequest struct {
	// Lines are the text's lines without their "\n" and without a "\r" before it.
	Lines      []string
	Goal       string
	SourceType SourceType
	Path       string
	Language   string
}

// ScoreResponse carries one relevance in [0, 1] per line of the request.
type ScoreResponse struct {
	Scores []float64
	// Focus lists the goal terms the scorer found most telling, best first; the engine
	// cites the first one absent from a cut run in the run's reason.
	Focus []string
	// Warnings are codes the scorer wants in the result (e.g. a structural fallback).
	Warnings []string
	// Threshold, when set, is the scorer's keep threshold for this request, in [0, 1], in
	// place of its default (Describer): for a scorer whose scores are calibrated differently
	// by source kind (a learned model with one expert per kind). A request's own threshold,
	// or its token budget, still takes precedence.
	Threshold *float64
}

// ThresholdOr is the response's Threshold when it has one, else def (the scorer's default).
func (r *ScoreResponse) ThresholdOr(def float64) float64 {
	if r.Threshold != nil {
		return *r.Threshold
	}
	return def
}

// Scorer assigns every line of a request a relevance in [0, 1].
type Scorer interface {
	// Score must be safe for concurrent use and should honour ctx's deadline.
	Score(ctx context.Context, req *ScoreRequest) (*ScoreResponse, error)
}

// ScorerInfo describes a scorer for listings and for the engine's default threshold.
type ScorerInfo struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Where       string  `json:"where"` // "in-process" or "plugin"
	Threshold   float64 `json:"threshold"`
}

// Describer is an optional Scorer ability: scorers that describe themselves set the
// default keep threshold the engine applies to their scores.
type Describer interface {
	Describe() ScorerInfo
}

// Elsewhere is an optional Scorer ability: a scorer whose Score waits on another process (a
// plugin, a model server) says so, so that a caller bounding its CPU-bound prunes can bound
// these apart. While such a scorer waits, this process's CPUs are free, and a call that hangs
// until its deadline must not hold a slot that in-process prunes need.
type Elsewhere interface {
	ScoresElsewhere() bool
}

// DefaultThreshold is the keep threshold for scorers that do not describe themselves.
const DefaultThreshold = 0.5

// ErrUnknownScorer is returned (wrapped) when a scorer name is not registered.
var ErrUnknownScorer = errors.New("unknown scorer")

// ErrScorerNotAllowed is returned (wrapped) when a "family:arg" spec names a family the
// registry knows with an argument it was not allowed to build (Registry.Allow).
var ErrScorerNotAllowed = errors.New("scorer not allowed")

// Factory builds a scorer from the argument of a "family:arg" spec (e.g. "onnx:models/x").
type Factory func(ctx context.Context, arg string) (Scorer, error)

// Registry maps scorer names to scorers. It is a value built in cmd, never a global.
type Registry struct {
	mu        sync.Mutex
	scorers   map[string]Scorer
	families  map[string]familyEntry
	built     map[string]Scorer
	defaultBy map[SourceType]string
	fallback  string
	// quiet holds, by scorer name, the warning codes QuietWhenDefault named.
	quiet map[string][]string
	// allowed and open are set by Allow (nil before): from then on Get builds only the
	// family specs in allowed, and every argument of the families in open.
	allowed map[string]bool
	open    map[string]bool
}

type familyEntry struct {
	factory     Factory
	description string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		scorers:   map[string]Scorer{},
		families:  map[string]familyEntry{},
		built:     map[string]Scorer{},
		defaultBy: map[SourceType]string{},
	}
}

// Register adds a scorer under name. A duplicate or malformed name is a programming error
// and panics.
func (r *Registry) Register(name string, s Scorer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" || strings.Contains(name, ":") || s == nil {
		panic(fmt.Sprintf("engine: invalid scorer registration %q", name))
	}
	if _, dup := r.scorers[name]; dup {
		panic(fmt.Sprintf("engine: scorer %q registered twice", name))
	}
	r.scorers[name] = s
	if r.fallback == "" {
		r.fallback = name
	}
}

// RegisterFamily adds a factory for specs of the form "prefix:arg". Built scorers are
// cached by their full spec. A duplicate prefix panics.
func (r *Registry) RegisterFamily(prefix, description string, f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prefix == "" || strings.Contains(prefix, ":") || f == nil {
		panic(fmt.Sprintf("engine: invalid scorer family %q", prefix))
	}
	if _, dup := r.families[prefix]; dup {
		panic(fmt.Sprintf("engine: scorer family %q registered twice", prefix))
	}
	r.families[prefix] = familyEntry{factory: f, description: description}
}

// SetDefault makes name the scorer used when a request names none. With no source types it
// is the default for all; otherwise only for those.
func (r *Registry) SetDefault(name string, types ...SourceType) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(types) == 0 {
		r.fallback = name
		return
	}
	for _, t := range types {
		r.defaultBy[t] = name
	}
}

// QuietWhenDefault names warning codes of scorer name that the engine drops when it chose
// that scorer as a default, the request having named none: codes by which the scorer says it
// deferred where its default role does not reach. The structural scorer is the default for
// code in the languages it knows and says structural_fallback:unknown_language elsewhere; a
// caller who asked for no scorer gets the heuristic there by design, which is no news, while
// one who asked for structural by name still hears it.
func (r *Registry) QuietWhenDefault(name string, codes ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.quiet == nil {
		r.quiet = map[string][]string{}
	}
	r.quiet[name] = append(r.quiet[name], codes...)
}

// quietCodes returns the codes QuietWhenDefault named for scorer name.
func (r *Registry) quietCodes(name string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.quiet[name]
}

// DefaultFor returns the name of the default scorer for a source type.
func (r *Registry) DefaultFor(t SourceType) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.defaultBy[t]; ok {
		return n
	}
	return r.fallback
}

// Allow limits the "family:arg" specs Get builds to those named: an exact spec
// ("onnx:models/linerank"), or "family:*" for every argument of a family. Scorers registered
// by name and specs already built are unaffected; each call adds to what the last allowed.
// Without a call every spec is built, which suits a command whose user is its operator. A
// server calls it before it serves, because a family's argument can be a directory to load
// or a URL to call, and a client must not pick those. A spec of no registered family is an
// error (an operator's typo).
func (r *Registry) Allow(specs ...string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.allowed == nil {
		r.allowed, r.open = map[string]bool{}, map[string]bool{}
	}
	for _, spec := range specs {
		prefix, arg, _ := strings.Cut(spec, ":")
		if _, ok := r.families[prefix]; !ok || arg == "" {
			return fmt.Errorf("allow %q: %w: want FAMILY:ARG or FAMILY:* for a family of %s", spec, ErrUnknownScorer, r.familiesLocked())
		}
		if arg == "*" {
			r.open[prefix] = true
		} else {
			r.allowed[spec] = true
		}
	}
	return nil
}

// AllowedByName reports whether spec is allowed by name: a "family:arg" spec Allow named
// exactly, or any spec while Allow has not been called. A family opened with "family:*" does
// not count: a factory that builds another family's spec inside its own (a plugin serving
// "onnx:DIR") asks whether that inner spec was allowed, by name or by its family (Allows).
func (r *Registry) AllowedByName(spec string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.allowed == nil || r.allowed[spec]
}

// Allows reports whether Get may build spec: a registered name, or a "family:arg" spec
// allowed by name or by an open family (Allow).
func (r *Registry) Allows(spec string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.scorers[spec]; ok {
		return true
	}
	prefix, _, _ := strings.Cut(spec, ":")
	return r.permitsLocked(spec, prefix)
}

// permitsLocked is Allow's rule for family spec (of family prefix): every spec before Allow
// is called, then those named or of a family opened with "family:*". The caller holds r.mu.
func (r *Registry) permitsLocked(spec, prefix string) bool {
	return r.allowed == nil || r.allowed[spec] || r.open[prefix]
}

// familiesLocked lists the registered families' prefixes, sorted.
func (r *Registry) familiesLocked() string {
	names := make([]string, 0, len(r.families))
	for p := range r.families {
		names = append(names, p)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Get returns the scorer for spec: a registered name, or "family:arg" built on first use
// (when Allow has not limited it).
func (r *Registry) Get(ctx context.Context, spec string) (Scorer, error) {
	r.mu.Lock()
	if s, ok := r.scorers[spec]; ok {
		r.mu.Unlock()
		return s, nil
	}
	if s, ok := r.built[spec]; ok {
		r.mu.Unlock()
		return s, nil
	}
	prefix, arg, hasArg := strings.Cut(spec, ":")
	fam, ok := r.families[prefix]
	if !ok || !hasArg || arg == "" {
		err := r.unknownLocked(spec, prefix, ok)
		r.mu.Unlock()
		return nil, err
	}
	if !r.permitsLocked(spec, prefix) {
		r.mu.Unlock()
		return nil, fmt.Errorf("scorer %q: %w: this server builds %s: scorers only for the arguments its operator allowed", spec, ErrScorerNotAllowed, prefix)
	}
	r.mu.Unlock()
	// Build outside the lock: a factory may start a process or load a model.
	s, err := fam.factory(ctx, arg)
	if err != nil {
		return nil, fmt.Errorf("scorer %q: %w", spec, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.built[spec]; ok {
		closeScorer(s)
		return prev, nil
	}
	r.built[spec] = s
	return s, nil
}

// unknownLocked is the error for a spec that names no scorer: it lists what would have
// worked, so a typo is fixed from the message alone. A family named without its argument
// ("onnx") says so.
func (r *Registry) unknownLocked(spec, prefix string, isFamily bool) error {
	if isFamily {
		return fmt.Errorf("scorer %q: %w: the %s family takes an argument (%s:<arg>)", spec, ErrUnknownScorer, prefix, prefix)
	}
	known := make([]string, 0, len(r.scorers)+len(r.families))
	for name := range r.scorers {
		known = append(known, name)
	}
	for p := range r.families {
		known = append(known, p+":<arg>")
	}
	sort.Strings(known)
	return fmt.Errorf("scorer %q: %w (known: %s)", spec, ErrUnknownScorer, strings.Join(known, ", "))
}

// List describes the registered scorers and families, sorted by name.
func (r *Registry) List() []ScorerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ScorerInfo
	for name, s := range r.scorers {
		info := ScorerInfo{Name: name, Where: "in-process", Threshold: DefaultThreshold}
		if d, ok := s.(Describer); ok {
			info = d.Describe()
			info.Name = name
		}
		out = append(out, info)
	}
	for prefix, fam := range r.families {
		out = append(out, ScorerInfo{Name: prefix + ":<arg>", Description: fam.description, Where: "family"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close closes every scorer that implements io.Closer and returns the first error.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var first error
	for _, s := range r.scorers {
		if err := closeScorer(s); err != nil && first == nil {
			first = err
		}
	}
	for _, s := range r.built {
		if err := closeScorer(s); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func closeScorer(s Scorer) error {
	if c, ok := s.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// ThresholdOf returns the default keep threshold of s.
func ThresholdOf(s Scorer) float64 {
	if d, ok := s.(Describer); ok {
		if t := d.Describe().Threshold; t > 0 && t <= 1 {
			return t
		}
	}
	return DefaultThreshold
}
